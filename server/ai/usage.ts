/**
 * What the AI step spends. reports.ai_usage: what it has cost a report, accumulated over the job and every
 * on-demand run in one statement (concurrent runs add up instead of overwriting each other). ai_daily_usage:
 * the tokens each account used per UTC day, checked against AI_DAILY_TOKEN_BUDGET before every model call.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { pendingReportWhere, runSql } from '../db/sql.ts';
import { forgetReports } from '../services/readCache.ts';
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
     where ${options.onlyPending ? pendingReportWhere('$1') : 'id = $1'}`,
    [
      reportId,
      run.model,
      at.toISOString(),
      JSON.stringify(run.fallback_reasons ?? {}),
      ...COUNTERS.map((key) => run[key]),
    ],
  );
  // The report's representation carries ai_usage (NOTIFY tells the other processes at commit).
  if (!options.onlyPending) forgetReports([reportId]);
}

const utcDay = (at: Date) => at.toISOString().slice(0, 10);

/** Completion tokens allowed for per item in a call's estimate (an interpretation is 150–300 tokens). */
export const COMPLETION_TOKENS_PER_ITEM = 400;

/**
 * A call's tokens before it is made: its prompt as a Chinese-aware tokenizer roughly counts (one token per CJK
 * character, one per four other characters) plus COMPLETION_TOKENS_PER_ITEM for each item it asks for.
 */
export function estimateCallTokens(prompt: string, items: number): number {
  let cjk = 0;
  for (const ch of prompt) if (/[\u3000-\u9fff\uff00-\uffef]/.test(ch)) cjk++;
  return cjk + Math.ceil((prompt.length - cjk) / 4) + items * COMPLETION_TOKENS_PER_ITEM;
}

/**
 * The account's daily token budget as a ceiling (AI_DAILY_TOKEN_BUDGET): every call RESERVES its estimated
 * tokens in PostgreSQL before it starts — one upsert that adds the estimate only while the account's day is
 * still under the budget — and settles the reservation to the tokens the model reported once it answers. So
 * the batched calls of a report (which start together) and of concurrent runs, in this or another process,
 * cannot all pass a check made before any of them spent: the budget is exceeded by at most one call (the
 * last admitted, by its own size). `limit` 0 → no limit (nothing is reserved, tokens are still counted).
 */
export async function accountTokenBudget(
  em: EntityManager,
  accountId: string,
  limit: number,
  now: () => Date = () => new Date(),
): Promise<TokenBudget> {
  let exhausted = false;
  const add = (tokens: number) =>
    runSql(
      em,
      `insert into ai_daily_usage (account_id, day, tokens) values ($1, $2::date, greatest($3::bigint, 0))
       on conflict (account_id, day) do update set tokens = greatest(ai_daily_usage.tokens + $3::bigint, 0)`,
      [accountId, utcDay(now()), tokens],
    );
  if (limit > 0) {
    const [row] = await runSql<{ tokens: string }>(
      em,
      'select tokens from ai_daily_usage where account_id = $1 and day = $2::date',
      [accountId, utcDay(now())],
    );
    exhausted = Number(row?.tokens ?? 0) >= limit;
  }
  return {
    exhausted: () => exhausted,
    async reserve(estimate) {
      if (limit <= 0) return true;
      if (exhausted) return false;
      const [row] = await runSql<{ tokens: string }>(
        em,
        `insert into ai_daily_usage (account_id, day, tokens) values ($1, $2::date, $3)
         on conflict (account_id, day) do update set tokens = ai_daily_usage.tokens + excluded.tokens
          where ai_daily_usage.tokens < $4
         returning tokens`,
        [accountId, utcDay(now()), estimate, limit],
      );
      if (!row) exhausted = true;
      else if (Number(row.tokens) >= limit) exhausted = true;
      return Boolean(row);
    },
    async settle(reserved, used) {
      if (limit <= 0) reserved = 0;
      if (used !== reserved) await add(used - reserved);
    },
  };
}
