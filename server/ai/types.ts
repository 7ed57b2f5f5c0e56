/**
 * Types shared by the AI step: what one interpretation is (whoever wrote it), and what a report's model use
 * cost. The stored shapes (`AiUsage` in reports.ai_usage, `RiskItem.source` in analysis_results.risk_items) are
 * part of the API, so they only ever grow.
 */
import type { RiskLevel } from '../../worker/types.ts';

export const AI_SOURCES = ['model', 'builtin'] as const;
/** Who wrote an item's ai_content: the configured model, or the deterministic built-in writer. */
export type AiSource = (typeof AI_SOURCES)[number];

/** A risk the model adds to an item's rule-based ones. */
export interface ProposedRisk {
  level: RiskLevel;
  message: string;
}

/**
 * One interpretation in structured form — the model's answer (validated) or the built-in writer's. Both are
 * turned into ai_content by the same function, so a reader sees one layout whoever wrote it.
 */
export interface StructuredInterpretation {
  /** What the figures say: the latest year's values and their direction of change. */
  summary: string;
  /** Which risks matter and why. */
  risk_focus: string;
  /** What a finance reader should check next, most important first. */
  next_steps: string[];
  /** Risks the rule-based items do not cover (model only; the built-in writer adds none). */
  risk_items: ProposedRisk[];
}

/** Token use and fallbacks of a report, accumulated over the job and every on-demand run. */
export interface AiUsage {
  /** The model of the latest run that called one; null when only the built-in writer has run. */
  model: string | null;
  /** AI runs: the job's step 3 and every on-demand generation. */
  runs: number;
  /** HTTP requests sent to the model, retries included. */
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Interpretations the model was asked for but the built-in writer wrote (failure, invalid output, budget). */
  fallbacks: number;
  /** Interpretations written by the model / by the built-in writer, over all runs. */
  model_items: number;
  builtin_items: number;
  /**
   * `fallbacks` by reason (`model_unavailable`: the circuit breaker was open; `budget_exhausted`: the account's
   * daily tokens were used up; `invalid_output`, `timeout`, …). Absent on usage recorded before it existed.
   */
  fallback_reasons?: Record<string, number>;
  /** ISO 8601 UTC time of the latest run. */
  updated_at: string;
}
