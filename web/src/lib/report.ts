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
    const risks =
      section.id === 'core_risk'
        ? countRisks(report.items.filter((item) => item.section !== 'core_risk').flatMap((i) => i.risk_items))
        : countRisks(items.flatMap((item) => item.risk_items));
    return { ...section, items, risks };
  });
}

/** True when every value of the item's top-level fields is missing (e.g. 其他综合收益 of a small enterprise). */
export function allFieldsEmpty(item: SharedAnalysisItem): boolean {
  const fields = scalarFields(item);
  return fields.length > 0 && fields.every((field) => item.sp_result[field.key] == null);
}
