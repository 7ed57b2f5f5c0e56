/**
 * Reading a shared report's items: the latest year's values, the year before, the fields of a list, risk
 * counts and groups. Pure functions over the API's JSON, shared by the components and the chart registry.
 */
import type { FieldMeta, RiskItem, RiskLevel, SharedAnalysisItem, SharedReport } from '../api/types.ts';
import { isNumber } from './format.ts';

export const LEVELS: readonly RiskLevel[] = ['danger', 'warning', 'info'];

export type SeriesEntry = Record<string, unknown> & { year: number };

/** The item's per-year entries (indicator items), ascending by year; empty for items without a series. */
export function seriesOf(item: SharedAnalysisItem): SeriesEntry[] {
  const series = item.sp_result.series;
  if (!Array.isArray(series)) return [];
  return series.filter((entry): entry is SeriesEntry => isNumber((entry as SeriesEntry)?.year));
}

export function releasedYear(item: SharedAnalysisItem): number | null {
  const year = item.sp_result.released_year;
  return isNumber(year) ? year : null;
}

/** The entry of the year before the released year, when the item has one. */
export function previousEntry(item: SharedAnalysisItem): SeriesEntry | null {
  const year = releasedYear(item);
  if (year === null) return null;
  return seriesOf(item).find((entry) => entry.year === year - 1) ?? null;
}

export function numberOrNull(value: unknown): number | null {
  return isNumber(value) ? value : null;
}

/** Fields of the item's top level (not of a list). */
export function scalarFields(item: SharedAnalysisItem): FieldMeta[] {
  return item.fields.filter((field) => !field.key.includes('[]'));
}

/** Fields of a list inside sp_result (`items`, `mismatches`), keyed by the entry's own key. */
export function listFields(item: SharedAnalysisItem, list: string): FieldMeta[] {
  const prefix = `${list}[].`;
  return item.fields
    .filter((field) => field.key.startsWith(prefix))
    .map((field) => ({ ...field, key: field.key.slice(prefix.length) }));
}

/** The lists an item documents (`items`, `mismatches`), each with its entries. */
export function listsOf(item: SharedAnalysisItem): Array<{ name: string; rows: Record<string, unknown>[] }> {
  const names = new Set(
    item.fields.filter((field) => field.key.includes('[].')).map((field) => field.key.split('[]')[0]!),
  );
  return [...names].map((name) => {
    const rows = item.sp_result[name];
    return { name, rows: Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [] };
  });
}

export function fieldLabel(item: SharedAnalysisItem, key: string): string {
  return item.fields.find((field) => field.key === key)?.label ?? key;
}

export function fieldUnit(item: SharedAnalysisItem, key: string): string {
  return item.fields.find((field) => field.key === key)?.unit ?? '';
}

export type RiskCounts = Record<RiskLevel, number> & { total: number };

export function countRisks(risks: readonly RiskItem[]): RiskCounts {
  const counts: RiskCounts = { danger: 0, warning: 0, info: 0, total: risks.length };
  for (const risk of risks) if (risk.level in counts) counts[risk.level]++;
  return counts;
}

export function highestLevel(risks: readonly RiskItem[]): RiskLevel | null {
  return LEVELS.find((level) => risks.some((risk) => risk.level === level)) ?? null;
}

export interface ModuleRisk extends RiskItem {
  slug: string;
  label: string;
}

/** Every risk of every item (except the core insight itself), grouped by level, most severe first. */
export function risksByLevel(report: SharedReport): Array<{ level: RiskLevel; risks: ModuleRisk[] }> {
  const all: ModuleRisk[] = report.items
    .filter((item) => item.section !== 'core_risk')
    .flatMap((item) => item.risk_items.map((risk) => ({ ...risk, slug: item.slug, label: item.label })));
  return LEVELS.map((level) => ({ level, risks: all.filter((risk) => risk.level === level) }));
}

export interface ReportSection {
  id: string;
  label: string;
  items: SharedAnalysisItem[];
  risks: RiskCounts;
}

/** The report's sections in order, each with its items and the count of their risks. */
export function sectionsOf(report: SharedReport): ReportSection[] {
  return report.sections.map((section) => {
    const items = report.items.filter((item) => item.section === section.id);
    // The core insight counts real risks only (data gaps and strengths apart, as its summary does).
    const risks =
      section.id === 'core_risk'
        ? coreInsight(report).counts
        : countRisks(items.flatMap((item) => item.risk_items));
    return { ...section, items, risks };
  });
}

/** True when every value of the item's top-level fields is missing (e.g. 其他综合收益 of a small enterprise). */
export function allFieldsEmpty(item: SharedAnalysisItem): boolean {
  const fields = scalarFields(item);
  return fields.length > 0 && fields.every((field) => item.sp_result[field.key] == null);
}

/**
 * The order of the year columns in every table, printed page and Excel sheet: newest first, so the latest year
 * and its change sit beside the indicator's name (on a phone and in a narrow print column alike).
 */
export function newestFirst(years: readonly number[]): number[] {
  return [...years].sort((a, b) => b - a);
}

/** Every year an item has values for, ascending: the series' years (or the released year alone). */
export function yearsOf(item: SharedAnalysisItem): number[] {
  const years = seriesOf(item).map((entry) => entry.year);
  if (years.length > 0) return [...new Set(years)].sort((a, b) => a - b);
  const year = releasedYear(item);
  return year === null ? [] : [year];
}

/** The entry of a year (the series' entry, or the flat latest-year keys for the released year). */
export function entryOf(item: SharedAnalysisItem, year: number): Record<string, unknown> | null {
  const entry = seriesOf(item).find((e) => e.year === year);
  if (entry) return entry;
  return releasedYear(item) === year ? item.sp_result : null;
}

/** Why a value is null (contract: `null_reasons` beside the value), or null when no reason is given. */
export function nullReason(holder: Record<string, unknown> | null | undefined, key: string): string | null {
  const reasons = holder?.null_reasons;
  if (!reasons || typeof reasons !== 'object') return null;
  const code = (reasons as Record<string, unknown>)[key];
  return typeof code === 'string' ? code : null;
}

/** Units whose year-on-year change reads as a relative rate; rates and ratios change in points or plainly. */
const AMOUNT_UNITS = new Set(['万元', '元', '元/股', '人', '天', '次', '倍']);

export interface Change {
  /** null when the change is not meaningful (then `reason` says why: a code of NULL_REASON_TEXT). */
  value: number | null;
  /** `%` (relative change of an amount) or `pp` (difference of two percentages) or `abs` (plain difference). */
  as: '%' | 'pp' | 'abs';
  reason?: string;
}

/** A relative change beyond this many percent is taken as growth on a tiny base (not meaningful). */
const TINY_BASE_PERCENT = 1000;

/**
 * The change of a value against the prior year: relative for amounts ("n.m." when the prior year's amount is
 * zero, tiny or of the other sign, where a rate means nothing), a difference in points for percentages, none
 * for keys that are themselves changes.
 */
export function changeOf(key: string, unit: string, latest: unknown, prior: unknown): Change | null {
  if (!isNumber(latest) || !isNumber(prior)) return null;
  if (/change|growth|_effect$|_gap$|difference/.test(key)) return null;
  if (unit === '%') return { value: latest - prior, as: 'pp' };
  if (unit === '万元' || unit === '元' || unit === '万元/人') {
    if (prior === 0)
      return latest === 0 ? { value: 0, as: '%' } : { value: null, as: '%', reason: 'zero_base' };
    if (prior < 0 || latest < 0) return { value: null, as: '%', reason: 'sign_change' };
    const rate = ((latest - prior) / prior) * 100;
    if (Math.abs(rate) > TINY_BASE_PERCENT) return { value: null, as: '%', reason: 'tiny_base' };
    return { value: rate, as: '%' };
  }
  if (AMOUNT_UNITS.has(unit) || unit === '') return { value: latest - prior, as: 'abs' };
  return null;
}

/** core_risk_insight's verdict (worker/engine/verdict.ts `Verdict`); fields after `drivers` are absent on older reports. */
export interface Verdict {
  grade: string;
  label: string;
  score: number;
  drivers: Array<{
    slug: string;
    key: string;
    label: string;
    value: number | null;
    unit?: string;
    effect: number;
    reason?: string;
  }>;
  provisional?: boolean;
  status?: string | null;
  provisional_reasons?: Array<{ code: 'data_quality' | 'coverage'; message: string }>;
  data_quality?: {
    level: 'reliable' | 'questionable' | 'unreliable';
    issues: Array<{ slug: string; code: string; year: number | null; level: RiskLevel; message: string }>;
  };
  coverage?: {
    weight_share: number;
    threshold: number;
    missing: Array<{ slug: string; key: string; label: string; weight: number; requires: string }>;
  };
  history?: Array<{ year: number; grade: string; label: string; score: number; weight_share: number }>;
  history_risks?: Array<{ level: RiskLevel; code?: string; message: string }>;
  band_sets?: Array<{ id: string; source: string; edition: string; year: number | null }>;
}
export interface DataGap {
  code: string;
  message: string;
  disables: string[];
}
export interface Strength {
  slug: string;
  code: string;
  message: string;
}
export interface TopRisk {
  slug: string;
  label: string;
  level: RiskLevel;
  code: string | null;
  message: string;
}

export interface CoreInsight {
  verdict: Verdict | null;
  counts: RiskCounts;
  dataGaps: DataGap[];
  strengths: Strength[];
  topRisks: TopRisk[];
}

/** Codes that are notes about missing data, not risks (reports from before the engine split them out). */
const LEGACY_GAP = /\.not_available$/;

/**
 * The core insight's verdict, real-risk counts, data gaps and strengths (contract 1). A report computed before
 * the verdict existed has none: the page then shows no grade, takes `*.not_available` notes as data gaps and
 * leaves them out of the counts and the top risks.
 */
export function coreInsight(report: SharedReport): CoreInsight {
  const core = report.items.find((item) => item.section === 'core_risk')?.sp_result ?? {};
  const verdict = isVerdict(core.verdict) ? core.verdict : null;
  const modern = Array.isArray(core.data_gaps) || Array.isArray(core.strengths);
  const strengths = (Array.isArray(core.strengths) ? core.strengths : []) as Strength[];
  const strengthCodes = new Set(strengths.map((s) => s.code));
  const allRisks = report.items
    .filter((item) => item.section !== 'core_risk')
    .flatMap((item) => item.risk_items.map((risk) => ({ ...risk, slug: item.slug, label: item.label })));
  let dataGaps = (Array.isArray(core.data_gaps) ? core.data_gaps : []) as DataGap[];
  if (!modern) {
    dataGaps = allRisks
      .filter((risk) => risk.code && LEGACY_GAP.test(risk.code))
      .map((risk) => ({ code: risk.code!, message: risk.message, disables: [risk.slug] }));
  }
  const gapCodes = new Set(dataGaps.map((gap) => gap.code));
  const isRisk = (risk: { code: string | null }) =>
    !risk.code || (!gapCodes.has(risk.code) && !strengthCodes.has(risk.code));
  const real = allRisks.filter(isRisk);
  const counts = countRisks(real);
  const listed = (Array.isArray(core.top_risks) ? core.top_risks : []) as TopRisk[];
  const order = (level: RiskLevel) => LEVELS.indexOf(level);
  const topRisks = (listed.length > 0 ? listed.filter(isRisk) : [])
    .concat(listed.length > 0 ? [] : [...real].sort((a, b) => order(a.level) - order(b.level)))
    .slice(0, 3);
  return { verdict, counts, dataGaps, strengths, topRisks };
}

function isVerdict(value: unknown): value is Verdict {
  const v = value as Verdict | null;
  return !!v && typeof v.grade === 'string' && typeof v.score === 'number' && Array.isArray(v.drivers);
}

export interface Headline {
  slug: string;
  key: string;
  label: string;
  unit: string;
  value: unknown;
  change: Change | null;
  year: number | null;
}

/** The six figures a credit officer reads first: size, result, cash and solvency, latest year against prior. */
export const HEADLINES: ReadonlyArray<{ slug: string; key: string; label?: string }> = [
  { slug: 'financial_benchmarks', key: 'operating_revenue' },
  { slug: 'financial_benchmarks', key: 'net_profit' },
  { slug: 'financial_benchmarks', key: 'total_assets' },
  { slug: 'financial_benchmarks', key: 'debt_to_asset_ratio' },
  { slug: 'short_term_liability', key: 'current_ratio' },
  { slug: 'operating_activities', key: 'net_cash_flow', label: '经营活动现金流量净额' },
];

export function headlineFigures(report: SharedReport): Headline[] {
  return HEADLINES.flatMap(({ slug, key, label }) => {
    const item = report.items.find((i) => i.slug === slug);
    if (!item) return [];
    const unit = fieldUnit(item, key);
    const value = item.sp_result[key];
    const prior = previousEntry(item)?.[key];
    return [
      {
        slug,
        key,
        label: label ?? fieldLabel(item, key),
        unit,
        value,
        change: changeOf(key, unit, value, prior),
        year: releasedYear(item),
      },
    ];
  });
}
