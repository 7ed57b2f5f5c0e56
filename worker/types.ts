/**
 * Types shared by the validator, the normaliser, the indicator engine and the server.
 * The engine only ever sees `NormalisedReport`: plain data that crosses to a worker thread by structured clone.
 */

export const ACCOUNTING_STANDARDS = ['small_enterprise', 'general_new', 'general_old'] as const;
export type AccountingStandard = (typeof ACCOUNTING_STANDARDS)[number];

export const SHEET_TYPES = ['income', 'balance', 'cash_flow'] as const;
export type SheetType = (typeof SHEET_TYPES)[number];

/**
 * One statement line, amounts as exact decimal strings in yuan (never floats).
 * `current` is `current_year_amount` (income, cash_flow) or `ending_balance` (balance);
 * `previous` is `last_year_amount` or `beginning_balance`, null when the client did not send it.
 */
export interface LineAmounts {
  current: string;
  previous: string | null;
}

/** Canonical item key → amounts, for one sheet of one year. */
export type SheetLines = Record<string, LineAmounts>;

export interface YearStatements {
  year: number;
  sheets: Partial<Record<SheetType, SheetLines>>;
}

export interface EnterpriseInfo {
  province?: string | null;
  city?: string | null;
  area?: string | null;
  industry_sector_code?: string | null;
  industry_sector?: string | null;
  industry_division_code?: string | null;
  industry_division?: string | null;
  employee_count?: string | null;
  taxpayer_qualification?: string | null;
  is_vat_taxpayer?: number | null;
  enterprise_type?: string | null;
  is_sme?: number | null;
}

/** The spec's enterprise_info fields, in its order. */
export const ENTERPRISE_INFO_FIELDS = [
  'province',
  'city',
  'area',
  'industry_sector_code',
  'industry_sector',
  'industry_division_code',
  'industry_division',
  'employee_count',
  'taxpayer_qualification',
  'is_vat_taxpayer',
  'enterprise_type',
  'is_sme',
] as const satisfies readonly (keyof EnterpriseInfo)[];

/** The yes/no fields of enterprise_info (0 or 1); the others are text. */
type EnterpriseInfoFlag = 'is_vat_taxpayer' | 'is_sme';
export type EnterpriseInfoTextField = Exclude<(typeof ENTERPRISE_INFO_FIELDS)[number], EnterpriseInfoFlag>;

export const ENTERPRISE_INFO_TEXT_FIELDS = ENTERPRISE_INFO_FIELDS.filter(
  (field): field is EnterpriseInfoTextField => field !== 'is_vat_taxpayer' && field !== 'is_sme',
);

/** What the engine computes from: the statements of every submitted year, ascending by year. */
export interface NormalisedReport {
  enterpriseName: string;
  standard: AccountingStandard;
  enterpriseInfo: EnterpriseInfo | null;
  years: YearStatements[];
}

export const RISK_LEVELS = ['info', 'warning', 'danger'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

export interface RiskItem {
  level: RiskLevel;
  message: string;
  /** Stable identifier of the rule that raised it, e.g. `balance_sheet.opening_mismatch`. */
  code?: string;
  /**
   * Who raised it: absent or `rule` for the engine's rules; `model` for a risk the AI step's model proposed
   * (code `ai.<slug>`). The engine never sets it.
   */
  source?: 'rule' | 'model';
}

/** The engine's result for one slug; the server adds label and cached_at. */
export interface AnalysisOutput {
  slug: string;
  sp_result: Record<string, unknown>;
  risk_items: RiskItem[];
}
