/**
 * Builds an indicator module from metric and risk-rule data: computes every metric for every submitted year,
 * lays out sp_result as { released_year, <latest year's values>, series }, and evaluates the risk rules.
 */
import type { RiskItem } from '../types.ts';
import type { ReportContext } from './context.ts';
import { changeRate, format2, type Num, num, round2 } from './decimal.ts';
import type { AnalysisModule, MetricDef, RiskRule, SectionId, Unit } from './module.ts';

export interface IndicatorModuleDef {
  slug: string;
  label: string;
  section: SectionId;
  description: string;
  metrics: readonly MetricDef[];
  riskRules?: readonly RiskRule[];
}

type YearValues = ReadonlyMap<string, Num>;

export function defineIndicatorModule(def: IndicatorModuleDef): AnalysisModule {
  const metricByKey = new Map(def.metrics.map((m) => [m.key, m]));
  if (metricByKey.size !== def.metrics.length) throw new Error(`${def.slug}: duplicate metric key`);
  for (const key of ['released_year', 'series', 'year']) {
    if (metricByKey.has(key)) throw new Error(`${def.slug}: metric key ${key} is reserved`);
  }
  const riskRules = def.riskRules ?? [];
  for (const rule of riskRules) {
    if (!metricByKey.has(rule.metric)) throw new Error(`${def.slug}: rule ${rule.code} names unknown metric`);
  }

  return {
    slug: def.slug,
    label: def.label,
    section: def.section,
    description: def.description,
    kind: 'indicator',
    fields: def.metrics,
    riskRules,
    compute(ctx) {
      const values = new Map<number, YearValues>();
      for (const year of ctx.years) {
        values.set(year, new Map(def.metrics.map((m) => [m.key, m.compute(ctx, year)])));
      }
      const rounded = (year: number): Record<string, number | null> => {
        const out: Record<string, number | null> = {};
        for (const [key, v] of values.get(year) ?? []) out[key] = round2(v);
        return out;
      };
      const risk_items: RiskItem[] = [];
      for (const rule of riskRules) {
        const item = evaluateRule(rule, metricByKey.get(rule.metric)!, ctx, values);
        if (item) risk_items.push(item);
      }
      return {
        sp_result: {
          released_year: ctx.latestYear,
          ...rounded(ctx.latestYear),
          series: ctx.years.map((year) => ({ year, ...rounded(year) })),
        },
        risk_items,
      };
    },
  };
}

function evaluateRule(
  rule: RiskRule,
  metric: MetricDef,
  ctx: ReportContext,
  values: ReadonlyMap<number, YearValues>,
): RiskItem | null {
  const year = ctx.latestYear;
  const value = values.get(year)?.get(rule.metric) ?? null;
  if (value === null) return null;

  if (rule.kind === 'decline') {
    const priorYear = ctx.previousYear(year);
    const prior = priorYear === null ? null : (values.get(priorYear)?.get(rule.metric) ?? null);
    const change = changeRate(value, prior);
    if (priorYear === null || prior === null || change === null) return null;
    const decline = change.negated();
    const tier = rule.tiers.find((t) => decline.greaterThan(num(t.threshold)));
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

  const tier = rule.tiers.find((t) =>
    rule.kind === 'below' ? value.lessThan(num(t.threshold)) : value.greaterThan(num(t.threshold)),
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
  元: '元',
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
