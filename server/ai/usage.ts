/**
 * What the AI step spends. reports.ai_usage: what it has cost a report, accumulated over the job and every
 * on-demand run in one statement (concurrent runs add up instead of overwriting each other). ai_daily_usage:
 * the tokens each account used per UTC day, checked against AI_DAILY_TOKEN_BUDGET before every model call.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { runSql } from '../db/sql.ts';
import type { RunUsage, TokenBudget } from './interpretations.ts';

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
    (key, i) => `'${key}', coalesce((ai_usage->>'${key}')::bigint, 0) + $${i + 5}::bigint`,
  ).join(',\n        ');
  // fallback_reasons: { reason: count }, added key by key.
  await runSql(
    em,
    `update reports set ai_usage = jsonb_build_object(
        'model', coalesce($2::text, ai_usage->>'model'),
        'runs', coalesce((ai_usage->>'runs')::bigint, 0) + 1,
        ${counters},
        'fallback_reasons', (
          select coalesce(jsonb_object_agg(k, coalesce((ai_usage->'fallback_reasons'->>k)::bigint, 0)
                                              + coalesce(($4::jsonb->>k)::bigint, 0)), '{}'::jsonb)
            from jsonb_object_keys(coalesce(ai_usage->'fallback_reasons', '{}'::jsonb) || $4::jsonb) as k),
        'updated_at', $3::text)
     where id = $1${options.onlyPending ? ` and status = 'pending'` : ''}`,
    [
      reportId,
      run.model,
      at.toISOString(),
      JSON.stringify(run.fallback_reasons ?? {}),
      ...COUNTERS.map((key) => run[key]),
    ],
  );
}

const utcDay = (at: Date) => at.toISOString().slice(0, 10);

/**
 * The account's daily token budget for one run: reads today's use once, then adds every call's tokens in one
 * upsert that returns the account's new total (so runs of the same account in this or another process see each
 * other's spending at their next call). `limit` 0 → no limit (nothing is read, tokens are still counted).
 * Concurrent runs can overshoot the budget by at most the calls they already have in flight.
 */
export async function accountTokenBudget(
  em: EntityManager,
  accountId: string,
  limit: number,
  now: () => Date = () => new Date(),
): Promise<TokenBudget> {
  let used = 0;
  if (limit > 0) {
    const [row] = await runSql<{ tokens: string }>(
      em,
      'select tokens from ai_daily_usage where account_id = $1 and day = $2::date',
      [accountId, utcDay(now())],
    );
    used = Number(row?.tokens ?? 0);
  }
  return {
    exhausted: () => limit > 0 && used >= limit,
    async spend(tokens) {
      const [row] = await runSql<{ tokens: string }>(
        em,
        `insert into ai_daily_usage (account_id, day, tokens) values ($1, $2::date, $3)
         on conflict (account_id, day) do update set tokens = ai_daily_usage.tokens + excluded.tokens
         returning tokens`,
        [accountId, utcDay(now()), tokens],
      );
      used = Math.max(used, Number(row?.tokens ?? 0));
    },
  };
}
