/**
 * The pool's contract with the server: a report goes to a worker as its JSON text and each item comes back with
 * its sp_result already serialised and encoded to UTF-8 (worker/jsonBytes.ts): one buffer a batch crosses threads as
 * one copy, where an object graph is cloned value by value on both sides, and the server writes the bytes to the
 * database as they are. Only the AI step, when it runs, needs sp_result as an object again (`toAnalysisOutputs`).
 */
import type { MatchedBenchmark } from './engine/benchmark.ts';
import { buildCoreRiskInsight } from './engine/coreRisk.ts';
import { benchmarkedSlugs } from './engine/industryBenchmark.ts';
import { analysisLabel, computeAnalysis, withIndustryBenchmark } from './engine/registry.ts';
import { VERDICT_INPUTS } from './engine/verdict.ts';
import { parseUtf8Json, utf8Document, utf8Documents } from './jsonBytes.ts';
import type { AnalysisOutput, NormalisedReport, RiskItem } from './types.ts';

export interface ComputedItem {
  slug: string;
  /** sp_result as JSON text, UTF-8 encoded. */
  spResultUtf8: Uint8Array;
  /** sp_result.released_year (the core risk insight takes it from the items). */
  releasedYear: number | null;
  /** What the core risk insight reads of sp_result (`coreView`): a small object, cheap to cross threads. */
  core: Record<string, unknown>;
  risk_items: RiskItem[];
}

/** The items whose figures the verdict's scorecard reads. */
const VERDICT_SLUGS = new Set(Object.keys(VERDICT_INPUTS));

/**
 * The part of an item's sp_result the core risk insight reads: released_year, the item's data gaps and
 * strengths, and — for the items the verdict scores — their flat (non-object) figures and the year series of
 * the scored keys. Everything else (other series, tables) stays in the JSON text.
 */
export function coreView(slug: string, spResult: Record<string, unknown>): Record<string, unknown> {
  const view: Record<string, unknown> = { released_year: spResult.released_year };
  if (spResult.data_gaps !== undefined) view.data_gaps = spResult.data_gaps;
  if (spResult.strengths !== undefined) view.strengths = spResult.strengths;
  if (VERDICT_SLUGS.has(slug)) {
    for (const [key, value] of Object.entries(spResult))
      if (value === null || typeof value !== 'object') view[key] = value;
    // The year series of the keys the verdict scores (verdict.history): nothing else of the series.
    if (Array.isArray(spResult.series)) {
      const keys = VERDICT_INPUTS[slug]!;
      view.series = (spResult.series as Record<string, unknown>[]).map((row) =>
        Object.fromEntries([['year', row.year], ...keys.map((k) => [k, row[k] ?? null])]),
      );
    }
  }
  return view;
}

/** Computes `slugs` over a report given as the JSON text of a NormalisedReport. Runs in a worker or inline. */
export function computeItems(reportJson: string, slugs: readonly string[]): ComputedItem[] {
  const report = JSON.parse(reportJson) as NormalisedReport;
  const outputs = computeAnalysis(report, slugs);
  const documents = utf8Documents(outputs.map((output) => JSON.stringify(output.sp_result)));
  return outputs.map((output, i) => ({
    slug: output.slug,
    spResultUtf8: documents[i]!,
    releasedYear: typeof output.sp_result.released_year === 'number' ? output.sp_result.released_year : null,
    core: coreView(output.slug, output.sp_result),
    risk_items: output.risk_items,
  }));
}

function computedItem(output: AnalysisOutput): ComputedItem {
  return {
    slug: output.slug,
    spResultUtf8: utf8Document(JSON.stringify(output.sp_result)),
    releasedYear: (output.sp_result.released_year as number | null) ?? null,
    core: { released_year: output.sp_result.released_year },
    risk_items: output.risk_items,
  };
}

/**
 * A report's items in presentation order: the core risk insight (built from every item's risk items, its
 * verdict banded against the matched benchmark) first, then the computed items as given (ANALYSIS_SLUGS order)
 * with industry_benchmark at the end of section 2.
 */
export function withCoreRiskInsight(
  computed: readonly ComputedItem[],
  benchmark?: MatchedBenchmark | null,
): ComputedItem[] {
  // industry_benchmark reads flat figures: the core view where it has them, else the item's parsed sp_result.
  const wanted = benchmarkedSlugs(benchmark);
  const outputs = computed.map((item) => ({
    slug: item.slug,
    sp_result:
      wanted.has(item.slug) && !VERDICT_SLUGS.has(item.slug)
        ? parseUtf8Json<Record<string, unknown>>(item.spResultUtf8)
        : item.core,
    risk_items: item.risk_items,
  }));
  const items = withIndustryBenchmark(computed, outputs, benchmark, computedItem);
  const core = buildCoreRiskInsight(
    items.map((item) => ({
      slug: item.slug,
      // The core risk insight reads the risk items and the `coreView` of each output, nothing else.
      sp_result: item.core,
      risk_items: item.risk_items,
    })),
    analysisLabel,
    benchmark,
  );
  return [
    {
      slug: core.slug,
      spResultUtf8: utf8Document(JSON.stringify(core.sp_result)),
      releasedYear: (core.sp_result.released_year as number | null) ?? null,
      core: {},
      risk_items: core.risk_items,
    },
    ...items,
  ];
}

/** The items as the engine's plain outputs (sp_result parsed back), for the AI step. */
export function toAnalysisOutputs(items: readonly ComputedItem[]): AnalysisOutput[] {
  return items.map((item) => ({
    slug: item.slug,
    sp_result: parseUtf8Json<Record<string, unknown>>(item.spResultUtf8),
    risk_items: item.risk_items,
  }));
}
