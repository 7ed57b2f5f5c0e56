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
import { writeBuiltinInterpretation } from './builtinWriter.ts';
import { composeAiContent } from './content.ts';
import { ModelCallLimiter } from './limiter.ts';
import { type CallUsage, ModelCallError, ModelClient, modelConfigured } from './modelClient.ts';
import { buildMessages, type ReportBrief } from './prompt.ts';
import type { AiSource } from './types.ts';

/** The process-wide AI machinery: one client and one limiter shared by every job and request. */
export interface AiRuntime {
  /** null when no model is configured: the built-in writer writes everything. */
  client: ModelClient | null;
  limiter: ModelCallLimiter;
}

export function createAiRuntime(config: Config, logger: Logger): AiRuntime {
  const client = modelConfigured(config) ? new ModelClient(config, logger.child({ component: 'ai' })) : null;
  return { client, limiter: new ModelCallLimiter(config.aiConcurrency, config.aiReportConcurrency) };
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

/** What one run cost; added to reports.ai_usage. */
export interface RunUsage extends CallUsage {
  model: string | null;
  fallbacks: number;
  model_items: number;
  builtin_items: number;
}

export interface InterpretationRun {
  items: ItemInterpretation[];
  usage: RunUsage;
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

/**
 * Writes the interpretations of `slugs` (or every item). Items are queued in the order given — the report's
 * presentation order, core_risk_insight first, so the headline item is the last to miss the deadline.
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
  };
  const addCalls = (spent: CallUsage) => {
    usage.calls += spent.calls;
    usage.prompt_tokens += spent.prompt_tokens;
    usage.completion_tokens += spent.completion_tokens;
    usage.total_tokens += spent.total_tokens;
  };

  const deadline = AbortSignal.timeout(input.budgetMs);
  const writeOne = async (item: AnalysisOutput): Promise<ItemInterpretation> => {
    if (!client) return builtin(item, report, logger);
    try {
      const answer = await ctx.ai.limiter.run(
        input.reportId,
        () => client.interpret(buildMessages(item, input.brief, report), deadline),
        deadline,
      );
      addCalls(answer.usage);
      return {
        slug: item.slug,
        ai_content: composeAiContent(answer.interpretation),
        ai_source: 'model',
        model_risk_items: answer.interpretation.risk_items.map((risk) => ({
          level: risk.level,
          message: risk.message,
          code: `ai.${item.slug}`,
          source: 'model',
        })),
      };
    } catch (error) {
      if (error instanceof ModelCallError) addCalls(error.usage);
      usage.fallbacks++;
      const reason = error instanceof ModelCallError ? error.reason : 'aborted';
      logger.warn(
        { slug: item.slug, reason, detail: error instanceof Error ? error.message : String(error) },
        'model interpretation failed; the built-in writer wrote it',
      );
      return builtin(item, report, logger);
    }
  };

  const items = await Promise.all(targets.map(writeOne));
  for (const item of items) {
    if (item.ai_source === 'model') usage.model_items++;
    else if (item.ai_source === 'builtin') usage.builtin_items++;
  }
  if (usage.calls === 0) usage.model = null;
  logger.info(
    { ...usage, items: items.length, mode: input.mode },
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
