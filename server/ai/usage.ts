/**
 * reports.ai_usage: what the AI step has cost a report, accumulated over the job and every on-demand run
 * in one statement (concurrent runs add up instead of overwriting each other).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { runSql } from '../db/sql.ts';
import type { RunUsage } from './interpretations.ts';

const COUNTERS = [
  'calls',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'fallbacks',
  'model_items',
  'builtin_items',
] as const;

/** Adds one run's usage to the report's ai_usage; `onlyPending` guards the job's write as its other writes are. */
export async function addAiUsage(
  em: EntityManager,
  reportId: string,
  run: RunUsage,
  at: Date,
  options: { onlyPending?: boolean } = {},
): Promise<void> {
  const counters = COUNTERS.map(
    (key, i) => `'${key}', coalesce((ai_usage->>'${key}')::bigint, 0) + $${i + 4}::bigint`,
  ).join(',\n        ');
  await runSql(
    em,
    `update reports set ai_usage = jsonb_build_object(
        'model', coalesce($2::text, ai_usage->>'model'),
        'runs', coalesce((ai_usage->>'runs')::bigint, 0) + 1,
        ${counters},
        'updated_at', $3::text)
     where id = $1${options.onlyPending ? ` and status = 'pending'` : ''}`,
    [reportId, run.model, at.toISOString(), ...COUNTERS.map((key) => run[key])],
  );
}
