/**
 * Builds an indicator module from metric and risk-rule data: computes every metric for every submitted year,
 * lays out sp_result as { released_year, <latest year's values>, series }, and evaluates the risk rules.
 */
import type { Decimal } from 'decimal.js';
import type { RiskItem } from '../types.ts';
import type { ReportContext } from './context.ts';
import { changeRate, format2, type Num, num, round2 } from './decimal.ts';
import { isMaterialLine } from './materiality.ts';
import type { AnalysisModule, MetricDef, RiskRule, SectionId, Unit } from './module.ts';

export interface IndicatorModuleDef {
  slug: string;
  label: string;
  section: SectionId;
  description: string;
  metrics: readonly MetricDef[];
  riskRules?: readonly RiskRule[];
}

/**
 * A metric computation that other modules reuse (through `borrowMetric` or by calling it): it runs once per report
 * and year (`ctx.memo`), however many modules show it.
 */
export function sharedCompute(compute: MetricDef['compute']): MetricDef['compute'] {
  return (ctx, year) => ctx.memo(compute, year);
}

/** One year's metric values, in `def.metrics` order. */
type YearValues = readonly Num[];

/** A risk rule with its thresholds as Decimals (converted once, when the module is defined). */
interface PreparedRule {
  readonly rule: RiskRule;
  readonly metric: MetricDef;
  readonly index: number;
  readonly thresholds: readonly Decimal[];
}

export function defineIndicatorModule(def: IndicatorModuleDef): AnalysisModule {
  const metricIndex = new Map(def.metrics.map((m, i) => [m.key, i]));
  if (metricIndex.size !== def.metrics.length) throw new Error(`${def.slug}: duplicate metric key`);
  for (const key of ['released_year', 'series', 'year']) {
    if (metricIndex.has(key)) throw new Error(`${def.slug}: metric key ${key} is reserved`);
  }
  const riskRules = def.riskRules ?? [];
  const prepared = riskRules.map((rule): PreparedRule => {
    const index = metricIndex.get(rule.metric);
    if (index === undefined) throw new Error(`${def.slug}: rule ${rule.code} names unknown metric`);
    return { rule, metric: def.metrics[index]!, index, thresholds: rule.tiers.map((t) => num(t.threshold)) };
  });

  return {
    slug: def.slug,
    label: def.label,
    section: def.section,
    description: def.description,
    kind: 'indicator',
    fields: def.metrics,
    riskRules,
    compute(ctx) {
      const values = new Map<number, YearValues>(
        ctx.years.map((year) => [year, def.metrics.map((m) => m.compute(ctx, year))]),
      );
      // Each year's values rounded once: the latest year's row is both the top level and the last series entry.
      const series = ctx.years.map((year) => {
        const row: Record<string, unknown> = { year };
        const yearValues = values.get(year)!;
        let reasons: Record<string, string> | undefined;
        def.metrics.forEach((m, i) => {
          const value = round2(yearValues[i]!);
          row[m.key] = value;
          const reason = value === null && m.nullReason ? m.nullReason(ctx, year) : null;
          if (reason !== null) {
            reasons ??= {};
            reasons[m.key] = reason;
          }
        });
        // Contract 2: beside the values, only when some value is null for a stated reason.
        if (reasons) row.null_reasons = reasons;
        return row;
      });
      const latest = series.at(-1)!;
      const sp_result: Record<string, unknown> = { released_year: ctx.latestYear };
      for (const m of def.metrics) sp_result[m.key] = latest[m.key];
      if (latest.null_reasons) sp_result.null_reasons = latest.null_reasons;
      sp_result.series = series;
      const risk_items: RiskItem[] = [];
      for (const rule of prepared) {
        const item = evaluateRule(rule, ctx, values);
        if (item) risk_items.push(item);
      }
      return { sp_result, risk_items };
    },
  };
}

function evaluateRule(
  { rule, metric, index, thresholds }: PreparedRule,
  ctx: ReportContext,
  values: ReadonlyMap<number, YearValues>,
): RiskItem | null {
  const year = ctx.latestYear;
  const value = values.get(year)?.[index] ?? null;
  if (value === null) return null;
  if (rule.materialLine && !isMaterialLine(ctx, year, rule.materialLine.sheet, rule.materialLine.key))
    return null;

  if (rule.kind === 'decline') {
    const priorYear = ctx.previousYear(year);
    const prior = priorYear === null ? null : (values.get(priorYear)?.[index] ?? null);
    const change = changeRate(value, prior);
    if (priorYear === null || prior === null || change === null) return null;
    const decline = change.negated();
    const tier = rule.tiers.find((_, i) => decline.greaterThan(thresholds[i]!));
    if (!tier) return null;
    return {
      level: tier.level,
      code: rule.code,
      message: fillTemplate(rule.message, {
        year: String(year),
        label: metric.label,
        value: formatValue(value, metric.unit),
        threshold: formatThreshold(tier.threshold, '%'),
        prior_year: String(priorYear),
        prior_value: formatValue(prior, metric.unit),
        decline: formatValue(decline, '%'),
      }),
    };
  }

  const tier = rule.tiers.find((_, i) =>
    rule.kind === 'below' ? value.lessThan(thresholds[i]!) : value.greaterThan(thresholds[i]!),
  );
  if (!tier) return null;
  return {
    level: tier.level,
    code: rule.code,
    message: fillTemplate(rule.message, {
      year: String(year),
      label: metric.label,
      value: formatValue(value, metric.unit),
      threshold: formatThreshold(tier.threshold, metric.unit),
    }),
  };
}

/** Unit text appended to a number in messages; multiples (倍) read naturally without one (流动比率为0.85). */
const UNIT_SUFFIX: Record<Unit, string> = {
  万元: '万元',
  '%': '%',
  倍: '',
  次: '次',
  个百分点: '个百分点',
  天: '天',
  个: '个',
  分: '分',
  元: '元',
  '万元/人': '万元/人',
  '': '',
};

export function formatValue(value: NonNullable<Num>, unit: Unit): string {
  return `${format2(value)}${UNIT_SUFFIX[unit]}`;
}

function formatThreshold(threshold: number, unit: Unit): string {
  return `${threshold}${UNIT_SUFFIX[unit]}`;
}

export function fillTemplate(template: string, vars: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => vars[name] ?? whole);
}
