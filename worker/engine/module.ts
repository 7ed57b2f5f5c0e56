/**
 * The shape of an analysis module. Modules are data: besides `compute`, each carries the metadata a generated
 * catalogue document needs (labels, units, formulas, inputs, risk rules), kept next to the code that uses it.
 */
import type { RiskItem, RiskLevel, SheetType } from '../types.ts';
import type { ReportContext } from './context.ts';
import type { Num } from './decimal.ts';

/** Report sections, in presentation order (spec: "Analysis slugs"). */
export const SECTIONS = {
  core_risk: '核心风险洞察',
  enterprise_overview: '企业概况',
  income_statement_analysis: '利润表分析',
  balance_sheet_analysis: '资产负债表分析',
  cash_flow_analysis: '现金流量表分析',
  comprehensive_analysis: '综合经营分析',
  data_check: '数据核对',
} as const;
export type SectionId = keyof typeof SECTIONS;

/**
 * Output units. '天' (days) and '个' (counts) extend the spec's amount/percentage/multiple units; '元' is for
 * per-share amounts (每股收益, 元/股), which are not converted to 万元.
 */
/** A field's unit; '' for a categorical value (an Altman zone or model), 分 for a score. */
export type Unit = '万元' | '万元/人' | '%' | '倍' | '次' | '个百分点' | '天' | '个' | '分' | '元' | '';

/** A statement line an indicator reads, as `sheet.item_key` (e.g. `income.revenue`). */
export type LineRef = `${SheetType}.${string}`;

/** Documentation of one numeric sp_result key. */
export interface FieldDoc {
  readonly key: string;
  /** Chinese display name. */
  readonly label: string;
  readonly unit: Unit;
  /** Human-readable formula. */
  readonly formula: string;
  readonly inputs: readonly LineRef[];
  /** When the value is null, and other decisions worth documenting. */
  readonly note?: string;
}

/** An indicator computed for one year; rounding is applied by the module builder, not here. */
export interface MetricDef extends FieldDoc {
  compute(ctx: ReportContext, year: number): Num;
  /**
   * When the value is null for a stated reason (a growth rate on a tiny base, a sign change): the reason code,
   * shown in `null_reasons` beside the value (catalogue `null_reasons` explains each code).
   */
  nullReason?(ctx: ReportContext, year: number): string | null;
}

export interface RiskTier {
  readonly level: RiskLevel;
  /** In the metric's unit; for `decline` rules a percentage fall against the prior year. */
  readonly threshold: number;
}

/** What every risk rule documents. Tiers are ordered most severe first. */
export interface RiskRuleDoc {
  /** Stable code carried by each risk item the rule raises. */
  readonly code: string;
  readonly tiers: readonly RiskTier[];
  /** Chinese description of the rule for the catalogue. */
  readonly description: string;
  /** Message template; `{name}` placeholders are filled by the module. */
  readonly message: string;
  /**
   * What the rule raises: a risk (the default); a data note (`data_gap`: a statement or line not submitted —
   * moved out of risk_items into `sp_result.data_gaps`, never counted as a risk); or a positive signal
   * (`strength`: moved into `sp_result.strengths`).
   */
  readonly role?: 'risk' | 'data_gap' | 'strength';
  /** For a `data_gap` rule: the gap it reports (one entry per gap in core_risk_insight, whatever raised it). */
  readonly gap?: string;
}

/**
 * A risk rule of an indicator module, evaluated on the released (latest) year.
 * - `below`: value < threshold; `above`: value > threshold;
 * - `decline`: the value fell by more than `threshold` percent against the previous submitted year.
 * The first tier that matches raises one item, so a metric never raises both its warning and its danger item.
 *
 * Message placeholders: {year} {label} {value} {threshold} and, for `decline`, {prior_year} {prior_value} {decline}.
 */
export interface RiskRule extends RiskRuleDoc {
  readonly metric: string;
  readonly kind: 'below' | 'above' | 'decline';
  /** The rule judges this line's growth or share: it fires only when the line is material (materiality.ts). */
  readonly materialLine?: { readonly sheet: SheetType; readonly key: string };
}

export interface ModuleResult {
  sp_result: Record<string, unknown>;
  risk_items: RiskItem[];
}

export interface AnalysisModule {
  readonly slug: string;
  /** Chinese display name. */
  readonly label: string;
  readonly section: SectionId;
  /** What the module does (catalogue text). */
  readonly description: string;
  /**
   * `indicator`: sp_result = { released_year, <fields of that year>, series: [{ year, <fields> }] };
   * `check`: a data cross-check with its own sp_result layout described by `fields`.
   */
  readonly kind: 'indicator' | 'check';
  readonly fields: readonly FieldDoc[];
  readonly riskRules: readonly RiskRuleDoc[];
  compute(ctx: ReportContext): ModuleResult;
}
