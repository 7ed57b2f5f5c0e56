/**
 * What a public share link reveals: the report's own content and nothing else — no ids, no account, no key,
 * no share settings beyond the link's expiry. Each analysis item is the developer API's item
 * (presentAnalysisItem) plus what a reader needs to display it without a key: its section, its kind and the
 * display name and unit of each sp_result key (from the analysis catalogue).
 */
import { type AnalysisCatalogue, analysisCatalogue } from '../../worker/catalogue/analysisCatalogue.ts';
import { ENTERPRISE_INFO_FIELDS } from '../../worker/types.ts';
import type { IAnalysisResult } from '../db/entities/analysisResult.entity.ts';
import type { IReport } from '../db/entities/report.entity.ts';
import type { SharedReport } from '../services/sharing.ts';
import { iso, presentAnalysisItem } from './reportPresenter.ts';

type CatalogueItem = AnalysisCatalogue['items'][number];

let bySlug: Map<string, CatalogueItem> | undefined;

function catalogueItem(slug: string): CatalogueItem | undefined {
  bySlug ??= new Map(analysisCatalogue().items.map((item) => [item.slug, item]));
  return bySlug.get(slug);
}

/** The spec's enterprise_info fields as submitted with this report (null when none were given). */
function presentEnterpriseInfo(report: IReport) {
  const info = report.enterpriseInfo;
  if (!info) return null;
  return Object.fromEntries(ENTERPRISE_INFO_FIELDS.map((field) => [field, info[field] ?? null]));
}

/** The catalogue's explanation of each not-meaningful reason code (contract 2); {} until the engine has them. */
function nullReasons(): Record<string, string> {
  const catalogue = analysisCatalogue() as AnalysisCatalogue & { null_reasons?: Record<string, string> };
  return catalogue.null_reasons ?? {};
}

export function presentSharedItem(item: IAnalysisResult) {
  const meta = catalogueItem(item.slug);
  return {
    ...presentAnalysisItem(item),
    section: meta?.section ?? null,
    kind: meta?.kind ?? null,
    fields: (meta?.fields ?? []).map((field) => ({
      key: field.key,
      label: field.label,
      unit: field.unit,
      formula: field.formula,
    })),
    // The glossary: what each risk code of this item means, one tap away on the page.
    risk_rules: (meta?.risk_rules ?? []).map((rule) => ({ code: rule.code, description: rule.description })),
  };
}

export function presentSharedReport({ report, items }: SharedReport) {
  const presented = items.map(presentSharedItem);
  const present = new Set(presented.map((item) => item.section));
  const years: number[] = [];
  for (let year = report.yearStart; year <= report.yearEnd; year++) years.push(year);
  return {
    name: report.name,
    version_no: report.versionNo,
    accounting_standard: report.accountingStandard,
    year_start: report.yearStart,
    year_end: report.yearEnd,
    years,
    completed_at: iso(report.completedAt),
    share_expires_at: iso(report.shareExpiresAt),
    enterprise_info: presentEnterpriseInfo(report),
    sections: analysisCatalogue().sections.filter((section) => present.has(section.id)),
    total: presented.length,
    items: presented,
    null_reasons: nullReasons(),
  };
}
