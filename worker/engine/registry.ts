/**
 * The catalogue of analysis modules, in presentation order. Adding a module = one file under `modules/` and
 * one line in `ANALYSIS_MODULES`.
 */
import type { AnalysisOutput, NormalisedReport } from '../types.ts';
import { createContext } from './context.ts';
import type { AnalysisModule } from './module.ts';
import { balanceSheetCheckModule } from './modules/balanceSheetCheck.ts';
import { longTermLiabilityModule } from './modules/longTermLiability.ts';
import { operationalEfficiencyModule } from './modules/operationalEfficiency.ts';
import { profitabilityModule } from './modules/profitability.ts';
import { revenueModule } from './modules/revenue.ts';
import { shortTermLiabilityModule } from './modules/shortTermLiability.ts';

/**
 * Presentation order follows the spec's sections; within section 4 the spec's order is kept and profitability
 * (not listed there by the spec) follows the solvency modules.
 */
export const ANALYSIS_MODULES: readonly AnalysisModule[] = [
  revenueModule,
  operationalEfficiencyModule,
  shortTermLiabilityModule,
  longTermLiabilityModule,
  profitabilityModule,
  balanceSheetCheckModule,
];

const MODULES_BY_SLUG: ReadonlyMap<string, AnalysisModule> = new Map(
  ANALYSIS_MODULES.map((m) => [m.slug, m]),
);
if (MODULES_BY_SLUG.size !== ANALYSIS_MODULES.length) throw new Error('Duplicate analysis slug in registry');

export const ANALYSIS_SLUGS: readonly string[] = ANALYSIS_MODULES.map((m) => m.slug);

export function isAnalysisSlug(slug: string): boolean {
  return MODULES_BY_SLUG.has(slug);
}

/** The module for a slug; throws on an unknown slug. */
export function getAnalysisModule(slug: string): AnalysisModule {
  const module = MODULES_BY_SLUG.get(slug);
  if (!module) throw new Error(`Unknown analysis slug: ${slug}`);
  return module;
}

/** Chinese display name of a slug; throws on an unknown slug. */
export function analysisLabel(slug: string): string {
  return getAnalysisModule(slug).label;
}

/**
 * Computes the requested slugs (in the order given) over one report. All slugs are resolved before any work,
 * so an unknown slug throws without partial results. Pure and synchronous; the output is plain JSON data.
 */
export function computeAnalysis(report: NormalisedReport, slugs: readonly string[]): AnalysisOutput[] {
  const modules = slugs.map(getAnalysisModule);
  const ctx = createContext(report);
  return modules.map((module) => {
    const { sp_result, risk_items } = module.compute(ctx);
    return { slug: module.slug, sp_result, risk_items };
  });
}
