/**
 * The public share endpoint's response (GET /api/v1/shared/reports/:token), as the server's
 * sharePresenter writes it. sp_result layouts differ per slug: see docs/analysis-catalogue.md.
 */

export type RiskLevel = 'info' | 'warning' | 'danger';

export type AccountingStandard = 'small_enterprise' | 'general_new' | 'general_old';

export type ItemKind = 'indicator' | 'check' | 'aggregate';

export interface RiskItem {
  level: RiskLevel;
  message: string;
  code: string | null;
  /** `rule` (the engine's rules) or `model` (proposed by the AI model); absent from older reports. */
  source?: 'rule' | 'model';
}

/** Display name and unit of one sp_result key; list entries are named `items[].amount`, `mismatches[].difference`. */
export interface FieldMeta {
  key: string;
  label: string;
  unit: string;
  /** How the value is computed (the catalogue's formula); absent from older servers. */
  formula?: string;
}

/** The rule behind a risk code (the catalogue's risk rule). */
export interface RiskRuleMeta {
  code: string;
  description: string;
}

export interface SharedAnalysisItem {
  slug: string;
  label: string;
  section: string | null;
  kind: ItemKind | null;
  fields: FieldMeta[];
  /** The rules that can raise this item's risks; absent from older servers. */
  risk_rules?: RiskRuleMeta[];
  sp_result: Record<string, unknown>;
  risk_items: RiskItem[];
  ai_content: string | null;
  /** Who wrote ai_content: the model or the built-in writer; absent from older reports. */
  ai_source?: 'model' | 'builtin' | null;
  cached_at: string | null;
}

export interface EnterpriseInfo {
  province: string | null;
  city: string | null;
  area: string | null;
  industry_sector_code: string | null;
  industry_sector: string | null;
  industry_division_code: string | null;
  industry_division: string | null;
  employee_count: string | null;
  taxpayer_qualification: string | null;
  is_vat_taxpayer: number | null;
  enterprise_type: string | null;
  is_sme: number | null;
}

export interface SharedReport {
  name: string;
  version_no: number;
  accounting_standard: AccountingStandard;
  year_start: number;
  year_end: number;
  years: number[];
  completed_at: string | null;
  share_expires_at: string | null;
  enterprise_info: EnterpriseInfo | null;
  sections: Array<{ id: string; label: string }>;
  total: number;
  items: SharedAnalysisItem[];
  /** Chinese explanation of each reason code a value may be null for (contract 2); absent from older servers. */
  null_reasons?: Record<string, string>;
}
