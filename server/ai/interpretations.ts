/**
 * The AI step: writes every requested item's interpretation, by the model when one may be used, else — and
 * whenever the model fails — by the built-in writer. It never throws for a model problem: a report is never
 * held back by its AI text.
 *
 * The model is used only for live-mode reports with a configured model. Test-mode reports always get the
 * built-in writer: test keys are for integrating against the API, and must neither spend model tokens nor
 * depend on a model being reachable.
 */
import type { Logger } from 'pino';
import { analysisLabel } from '../../worker/engine/registry.ts';
import type { AnalysisOutput, RiskItem } from '../../worker/types.ts';
import type { Config } from '../config.ts';
import type { ApiKeyMode } from '../db/entities/apiKey.entity.ts';
import { aiFallbacks } from '../observability/metrics.ts';
import { CircuitBreaker } from './breaker.ts';
import { writeBuiltinInterpretation } from './builtinWriter.ts';
import { composeAiContent } from './content.ts';
import { ModelCallLimiter } from './limiter.ts';
import {
  type CallUsage,
  ModelCallError,
  ModelClient,
  type ModelFailure,
  modelConfigured,
} from './modelClient.ts';
import { BATCH_JSON_SCHEMA, parseBatchInterpretations } from './outputSchema.ts';
import { buildBatchMessages, type ReportBrief } from './prompt.ts';
import type { AiSource } from './types.ts';
import { estimateCallTokens } from './usage.ts';

/** The process-wide AI machinery: one client, one limiter and one circuit breaker shared by every job and request. */
export interface AiRuntime {
  /** null when no model is configured: the built-in writer writes everything. */
  client: ModelClient | null;
  limiter: ModelCallLimiter;
  breaker: CircuitBreaker;
  /** Items per model call. */
  batchSize: number;
  responseFormat: Config['aiResponseFormat'];
}

export function createAiRuntime(config: Config, logger: Logger): AiRuntime {
  const breaker = new CircuitBreaker({
    threshold: config.aiBreakerThreshold,
    cooldownMs: config.aiBreakerCooldownMs,
    maxCooldownMs: config.aiBreakerCooldownMs * 16,
  });
  const client = modelConfigured(config)
    ? new ModelClient(config, logger.child({ component: 'ai' }), breaker)
    : null;
  return {
    client,
    limiter: new ModelCallLimiter(config.aiConcurrency, config.aiReportConcurrency),
    breaker,
    batchSize: config.aiBatchSize,
    responseFormat: config.aiResponseFormat,
  };
}

/**
 * How long one run may take. On demand: one call's timeout × its attempts, so a slow model cannot hold an
 * HTTP request longer than that. In the job: 80% of JOB_TIMEOUT_SECONDS, so the step finishes (items the
 * model has not answered by then fall back) well before the attempt would be abandoned and retried.
 */
export function aiBudgetMs(
  config: Pick<Config, 'aiTimeoutMs' | 'aiMaxRetries' | 'jobTimeoutSeconds'>,
  kind: 'job' | 'request',
): number {
  return kind === 'request'
    ? config.aiTimeoutMs * (config.aiMaxRetries + 1)
    : Math.floor(config.jobTimeoutSeconds * 1000 * 0.8);
}

export interface ItemInterpretation {
  slug: string;
  /** null only if even the built-in writer failed (a bug; logged). */
  ai_content: string | null;
  ai_source: AiSource | null;
  /** Risks the model proposed, marked `source: 'model'`, code `ai.<slug>`; empty for the built-in writer. */
  model_risk_items: RiskItem[];
}

/** Why the built-in writer wrote an item the model was asked for (a ModelFailure, or the account's budget). */
export type FallbackReason = ModelFailure | 'budget_exhausted';

/** What one run cost; added to reports.ai_usage. */
export interface RunUsage extends CallUsage {
  model: string | null;
  fallbacks: number;
  model_items: number;
  builtin_items: number;
  /** Fallbacks by reason (`model_unavailable`: the circuit breaker was open; `budget_exhausted`: the account's daily tokens). */
  fallback_reasons: Partial<Record<FallbackReason, number>>;
}

export interface InterpretationRun {
  items: ItemInterpretation[];
  usage: RunUsage;
}

/** The account's daily model tokens, as a run sees them (server/ai/usage.ts `accountTokenBudget`). */
export interface TokenBudget {
  /** Has the account used its tokens for today (as far as this process knows)? */
  exhausted(): boolean;
  /** Reserves a call's estimated tokens before it starts; false (nothing reserved) when the day is spent. */
  reserve(estimate: number): Promise<boolean>;
  /** Replaces a reservation by the tokens the call used (billed whether or not its answer was usable). */
  settle(reserved: number, used: number): Promise<void>;
}

export interface WriteInterpretationsInput {
  reportId: string;
  mode: ApiKeyMode;
  brief: ReportBrief;
  /** The whole report, in presentation order, with its rule-based risk items (model-proposed ones are ignored). */
  items: readonly AnalysisOutput[];
  /** The slugs to write; every item when absent. */
  slugs?: readonly string[];
  /** Deadline of the whole run, ms: unanswered items then fall back to the built-in writer. */
  budgetMs: number;
  /** The account's daily token budget; none → no limit. */
  tokens?: TokenBudget;
}

export interface AiContext {
  ai: AiRuntime;
  logger: Logger;
}

function ruleOnly(item: AnalysisOutput): AnalysisOutput {
  return { ...item, risk_items: item.risk_items.filter((risk) => risk.source !== 'model') };
}

function builtin(
  item: AnalysisOutput,
  report: readonly AnalysisOutput[],
  logger: Logger,
): ItemInterpretation {
  try {
    const text = composeAiContent(writeBuiltinInterpretation(item, report, analysisLabel));
    return { slug: item.slug, ai_content: text, ai_source: 'builtin', model_risk_items: [] };
  } catch (error) {
    logger.error({ err: error, slug: item.slug }, 'the built-in writer failed; the item has no AI text');
    return { slug: item.slug, ai_content: null, ai_source: null, model_risk_items: [] };
  }
}

/** The built-in writer for every requested item: the fallback when the whole step fails. */
export function writeBuiltinInterpretations(
  input: Pick<WriteInterpretationsInput, 'items' | 'slugs'>,
  logger: Logger,
): ItemInterpretation[] {
  const report = input.items.map(ruleOnly);
  const wanted = input.slugs ? new Set(input.slugs) : null;
  return report
    .filter((item) => !wanted || wanted.has(item.slug))
    .map((item) => builtin(item, report, logger));
}

/** `items` in consecutive batches of at most `size`, as even as possible (43 by 6 → 7,6,6,6,6,6,6). */
export function batchesOf<T>(items: readonly T[], size: number): T[][] {
  if (items.length === 0) return [];
  const count = Math.ceil(items.length / Math.max(1, size));
  const batches: T[][] = [];
  let start = 0;
  for (let i = 0; i < count; i++) {
    const length = Math.floor(items.length / count) + (i < items.length % count ? 1 : 0);
    batches.push(items.slice(start, start + length));
    start += length;
  }
  return batches;
}

class BudgetExhaustedError extends Error {}

/** What a call that never reached the model (aborted, a connection refused) used. */
const NO_USAGE: CallUsage = { calls: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/**
 * Writes the interpretations of `slugs` (or every item), several items per model call (AI_BATCH_SIZE). Batches
 * are queued in the order given — the report's presentation order, core_risk_insight first, so the headline
 * item is the last to miss the deadline. A batch is not sent when the circuit breaker is open or the account's
 * daily tokens are used up: its items go to the built-in writer at once.
 */
export async function writeInterpretations(
  ctx: AiContext,
  input: WriteInterpretationsInput,
): Promise<InterpretationRun> {
  const logger = ctx.logger.child({ reportId: input.reportId });
  const report = input.items.map(ruleOnly);
  const wanted = input.slugs ? new Set(input.slugs) : null;
  const targets = report.filter((item) => !wanted || wanted.has(item.slug));
  const client = input.mode === 'live' ? ctx.ai.client : null;
  const usage: RunUsage = {
    model: client?.model ?? null,
    calls: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    fallbacks: 0,
    model_items: 0,
    builtin_items: 0,
    fallback_reasons: {},
  };
  const spend = async (spent: CallUsage, reserved: number) => {
    usage.calls += spent.calls;
    usage.prompt_tokens += spent.prompt_tokens;
    usage.completion_tokens += spent.completion_tokens;
    usage.total_tokens += spent.total_tokens;
    await input.tokens?.settle(reserved, spent.total_tokens).catch((error: unknown) => {
      logger.error({ err: error }, "the account's token use could not be recorded");
    });
  };
  const fallBack = (items: readonly AnalysisOutput[], reason: FallbackReason, detail: string) => {
    usage.fallbacks += items.length;
    usage.fallback_reasons[reason] = (usage.fallback_reasons[reason] ?? 0) + items.length;
    aiFallbacks.inc({ reason }, items.length);
    // One line per batch; while the breaker is open or the budget is spent, one line per run (below).
    if (reason !== 'model_unavailable' && reason !== 'budget_exhausted')
      logger.warn(
        { slugs: items.map((item) => item.slug), reason, detail },
        'model interpretation failed; the built-in writer wrote it',
      );
    return items.map((item) => builtin(item, report, logger));
  };

  const deadline = AbortSignal.timeout(input.budgetMs);
  /** The last reservation of this run: the next one waits for it (see writeBatch). */
  let reserving: Promise<boolean> = Promise.resolve(true);
  const writeBatch = async (batch: AnalysisOutput[]): Promise<ItemInterpretation[]> => {
    if (!client) return batch.map((item) => builtin(item, report, logger));
    if (input.tokens?.exhausted()) return fallBack(batch, 'budget_exhausted', 'daily token budget used');
    // Not even a queue slot while the breaker is open: the items are written at once.
    if (ctx.ai.breaker.state === 'open') return fallBack(batch, 'model_unavailable', 'circuit breaker open');
    const slugs = batch.map((item) => item.slug);
    let content: string;
    try {
      // The tokens are recorded before the call's slot is freed, so the report's next call sees them.
      const answer = await ctx.ai.limiter.run(
        input.reportId,
        async () => {
          const messages = buildBatchMessages(batch, input.brief, report, ctx.ai.responseFormat);
          // Reserved before the call starts (server/ai/usage.ts): the daily budget is a ceiling.
          const estimate = input.tokens
            ? estimateCallTokens(
                messages.map((message) => String(message.content ?? '')).join('\n'),
                batch.length,
              )
            : 0;
          // Reservations are made one after another in the order the batches got their slots, so the calls
          // still start in the report's order (core_risk_insight first) whatever each reservation's round trip.
          const reservation = input.tokens ? reserving.then(() => input.tokens!.reserve(estimate)) : null;
          if (reservation) reserving = reservation.catch(() => false);
          if (reservation && !(await reservation)) throw new BudgetExhaustedError('daily token budget used');
          let settled = false;
          try {
            const answered = await client.complete(
              messages,
              { name: 'financial_interpretations', schema: BATCH_JSON_SCHEMA },
              deadline,
            );
            settled = true;
            await spend(answered.usage, estimate);
            return answered;
          } catch (error) {
            if (!settled) {
              const spent = error instanceof ModelCallError ? error.usage : NO_USAGE;
              await spend(spent, estimate);
            }
            throw error;
          }
        },
        deadline,
      );
      content = answer.content;
    } catch (error) {
      const reason: FallbackReason =
        error instanceof ModelCallError
          ? error.reason
          : error instanceof BudgetExhaustedError
            ? 'budget_exhausted'
            : 'aborted';
      return fallBack(batch, reason, error instanceof Error ? error.message : String(error));
    }
    const parsed = parseBatchInterpretations(content, slugs);
    return batch.map((item): ItemInterpretation => {
      const answer = parsed.get(item.slug);
      if (!answer || answer instanceof Error)
        return fallBack([item], 'invalid_output', answer?.message ?? 'no answer')[0] as ItemInterpretation;
      return {
        slug: item.slug,
        ai_content: composeAiContent(answer),
        ai_source: 'model',
        model_risk_items: answer.risk_items.map((risk) => ({
          level: risk.level,
          message: risk.message,
          code: `ai.${item.slug}`,
          source: 'model',
        })),
      };
    });
  };

  const items = (await Promise.all(batchesOf(targets, ctx.ai.batchSize).map(writeBatch))).flat();
  for (const item of items) {
    if (item.ai_source === 'model') usage.model_items++;
    else if (item.ai_source === 'builtin') usage.builtin_items++;
  }
  if (usage.calls === 0) usage.model = null;
  const summary = { ...usage, items: items.length, mode: input.mode };
  if (usage.fallback_reasons.model_unavailable)
    logger.warn(
      { ...summary, breaker: ctx.ai.breaker.describe() },
      'the model circuit breaker was open: the built-in writer wrote the items it refused',
    );
  else if (usage.fallback_reasons.budget_exhausted)
    logger.warn(
      summary,
      "the account's daily AI token budget is used up: the built-in writer wrote the rest",
    );
  else
    logger.info(
      summary,
      usage.calls > 0
        ? 'AI interpretations written with the model'
        : 'AI interpretations written by the built-in writer',
    );
  return { items, usage };
}

/** An item's risk items after a run: its rule-based ones, then the model's new ones (earlier model ones dropped). */
export function mergeRiskItems(current: readonly RiskItem[], proposed: readonly RiskItem[]): RiskItem[] {
  return [...current.filter((risk) => risk.source !== 'model'), ...proposed];
}
