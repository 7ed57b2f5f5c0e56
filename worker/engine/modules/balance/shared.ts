/**
 * Small pure helpers shared by the balance-sheet, cash-flow and equity modules: the indicator sp_result layout for
 * hand-written modules, catalogue-driven line lists, structure (share) and change-rate rows, cash-flow subtotals
 * derived from their detail lines, and indicator modules with extra hand-written risk rules.
 */
import { findLineItem, LINE_ITEMS, type LineItemGroup } from '../../../catalogue/lineItems.ts';
import type { AccountingStandard, RiskItem, RiskLevel, SheetType } from '../../../types.ts';
import type { ReportContext } from '../../context.ts';
import { format2, type Num, pct, pctOver, ratio, round2, round2Wan, sub, sum, toWan } from '../../decimal.ts';
import {
  defineIndicatorModule,
  fillTemplate,
  type IndicatorModuleDef,
  sharedCompute,
} from '../../indicator.ts';
import { growthNullReason, guardedChangeRate, type NullReason, priorScale } from '../../materiality.ts';
import type { AnalysisModule, LineRef, MetricDef, RiskRuleDoc } from '../../module.ts';

/** Reads one line of one period; `key` → amount in yuan or null. */
export type Reader = (key: string) => Num;

export const currentReader =
  (ctx: ReportContext, year: number, sheet: SheetType): Reader =>
  (key) =>
    ctx.line(year, sheet, key);

/** The prior period of `year` as `ctx.priorPeriod` defines it (first year: its own previous column). */
export const priorReader =
  (ctx: ReportContext, year: number, sheet: SheetType): Reader =>
  (key) =>
    ctx.priorPeriod(year, sheet, key);

/** The indicator layout { released_year, <latest year's keys>, series: [{ year, <keys> }] } from one row per year. */
export function seriesLayout(
  ctx: ReportContext,
  perYear: (year: number) => Record<string, unknown>,
): Record<string, unknown> {
  const rows = new Map(ctx.years.map((year) => [year, perYear(year)]));
  return {
    released_year: ctx.latestYear,
    ...rows.get(ctx.latestYear),
    series: ctx.years.map((year) => ({ year, ...rows.get(year) })),
  };
}

/** Catalogue keys of the given groups of one sheet, in statement order. */
export function catalogueKeys(sheet: SheetType, groups: readonly LineItemGroup[]): string[] {
  return LINE_ITEMS.filter((def) => def.sheet === sheet && groups.includes(def.group)).map((def) => def.key);
}

/** Chinese line name from the catalogue; an unknown key is returned unchanged. */
export function lineLabel(sheet: SheetType, key: string): string {
  return findLineItem(sheet, key)?.nameZh ?? key;
}

/**
 * The keys (in the given order) present on `sheet` in at least one submitted year. Every year's rows use the same
 * list so the series lines up; a line a year lacks reads as null there.
 */
export function presentKeys(ctx: ReportContext, sheet: SheetType, keys: readonly string[]): string[] {
  const present = new Set(ctx.years.flatMap((year) => ctx.keys(year, sheet)));
  return keys.filter((key) => present.has(key));
}

export const refs = (sheet: SheetType, keys: readonly string[]): LineRef[] =>
  keys.map((key) => `${sheet}.${key}` as const);

/** amount / base × 100, only over a positive base (a share of a zero or negative total has no meaning). */
export function shareOf(amount: Num, base: Num): Num {
  if (base === null || base.lessThanOrEqualTo(0)) return null;
  return pct(amount, base);
}

/** `shareOf(·, base)` for the many rows of one base (`pctOver`: one multiplication for all of them). */
function sharesOf(base: Num): (amount: Num) => Num {
  return base === null || base.lessThanOrEqualTo(0) ? () => null : pctOver(base);
}

// structure (shares of a total)

export interface StructureRow {
  key: string;
  label: string;
  amount: Num;
  share: Num;
}

export interface Remainder {
  key: string;
  label: string;
}

/**
 * One row per detail line (amount, share of the base line) plus the remainder row: base − Σ present detail
 * lines, so the shares add up to 100. A line missing this year is null and adds nothing to the sum; the
 * remainder is null without a base amount. Shares are null when the base is missing, zero or negative.
 */
export function structureRows(
  read: Reader,
  sheet: SheetType,
  keys: readonly string[],
  baseKey: string,
  remainder: Remainder,
): { base: Num; rows: StructureRow[] } {
  const base = read(baseKey);
  const shareOfBase = sharesOf(base);
  const rows: StructureRow[] = keys.map((key) => {
    const amount = read(key);
    return { key, label: lineLabel(sheet, key), amount, share: shareOfBase(amount) };
  });
  const rest = sub(
    base,
    sum(
      rows.map((r) => r.amount),
      { missingAsZero: true },
    ),
  );
  rows.push({ ...remainder, amount: rest, share: shareOfBase(rest) });
  return { base, rows };
}

export const roundStructureRow = (r: StructureRow) => ({
  key: r.key,
  label: r.label,
  amount: round2Wan(r.amount),
  share: round2(r.share),
});

// change rates

export interface ChangeRow {
  key: string;
  label: string;
  amount: Num;
  previous: Num;
  change: Num;
  rate: Num;
  /** Why `rate` is null although both amounts exist (materiality.ts). */
  reason: NullReason | null;
}

/** Year-end amount against the prior period (`ctx.priorPeriod`): amount change and change rate. */
export function changeRows(ctx: ReportContext, year: number, sheet: SheetType, keys: readonly string[]) {
  return keys.map((key): ChangeRow => {
    const amount = ctx.line(year, sheet, key);
    const previous = ctx.priorPeriod(year, sheet, key);
    return {
      key,
      label: lineLabel(sheet, key),
      amount,
      previous,
      change: ctx.lineChange(year, sheet, key),
      rate: ctx.lineChangeRate(year, sheet, key),
      reason: ctx.lineChangeReason(year, sheet, key),
    };
  });
}

/** `{ null_reasons }` for the flat keys whose change rate is null for a stated reason, else nothing (contract 2). */
export function nullReasons(entries: Readonly<Record<string, NullReason | null | undefined>>): {
  null_reasons?: Record<string, NullReason>;
} {
  const reasons = Object.entries(entries).filter((e): e is [string, NullReason] => Boolean(e[1]));
  return reasons.length > 0 ? { null_reasons: Object.fromEntries(reasons) } : {};
}

export const roundChangeRow = (r: ChangeRow) => ({
  key: r.key,
  label: r.label,
  amount: round2Wan(r.amount),
  previous_amount: round2Wan(r.previous),
  change_amount: round2Wan(r.change),
  change_rate: round2(r.rate),
  ...(r.reason ? { null_reasons: { change_rate: r.reason } } : {}),
});

// cash flow

export interface CashFlowSection {
  readonly label: string;
  readonly inTotal: string;
  readonly inGroup: LineItemGroup;
  readonly outTotal: string;
  readonly outGroup: LineItemGroup;
  readonly net: string;
}

export const OPERATING: CashFlowSection = {
  label: '经营活动',
  inTotal: 'op_cash_in_total',
  inGroup: 'operating_in',
  outTotal: 'op_cash_out_total',
  outGroup: 'operating_out',
  net: 'net_cf_operating',
};
export const INVESTING: CashFlowSection = {
  label: '投资活动',
  inTotal: 'invest_cash_in_total',
  inGroup: 'investing_in',
  outTotal: 'invest_cash_out_total',
  outGroup: 'investing_out',
  net: 'net_cf_investing',
};
export const FINANCING: CashFlowSection = {
  label: '筹资活动',
  inTotal: 'finance_cash_in_total',
  inGroup: 'financing_in',
  outTotal: 'finance_cash_out_total',
  outGroup: 'financing_out',
  net: 'net_cf_financing',
};

/**
 * Detail lines the spec names as main item_name values: a client is expected to send them, so a derived subtotal
 * needs every one of them that the standard's format has. The other catalogue lines of a group (e.g. 处置子公司
 * 收到的现金净额, small enterprises' 偿还借款利息) are rarer and are added when present.
 */
const MAIN_CASH_FLOW_LINES: ReadonlySet<string> = new Set([
  'sales_cash',
  'tax_refund',
  'other_op_cash_in',
  'purchase_cash',
  'salary_paid',
  'tax_paid',
  'other_op_cash_out',
  'invest_proceeds',
  'invest_income',
  'asset_disposal',
  'asset_purchase',
  'invest_payments',
  'capital_received',
  'borrowings_received',
  'debt_repayment',
  'dividends_interest_paid',
]);

/** Detail lines of a cash-flow group in the format of `standard`, split into required and optional. */
export function cashFlowDetailLines(group: LineItemGroup, standard: AccountingStandard) {
  const lines = LINE_ITEMS.filter(
    (def) => def.sheet === 'cash_flow' && def.group === group && def.standards.includes(standard),
  ).map((def) => def.key);
  return {
    required: lines.filter((key) => MAIN_CASH_FLOW_LINES.has(key)),
    optional: lines.filter((key) => !MAIN_CASH_FLOW_LINES.has(key)),
  };
}

/**
 * A cash-flow subtotal: the submitted line, or when it is missing the sum of its detail lines — null unless every
 * required detail line is present (a missing one would understate the subtotal).
 */
export function cashSubtotal(
  read: Reader,
  standard: AccountingStandard,
  totalKey: string,
  group: LineItemGroup,
) {
  const submitted = read(totalKey);
  if (submitted !== null) return submitted;
  const { required, optional } = cashFlowDetailLines(group, standard);
  const base = sum(required.map(read));
  return base === null ? null : sum([base, ...optional.map(read)], { missingAsZero: true });
}

export interface Flows {
  inflow: Num;
  outflow: Num;
  net: Num;
}

/** Inflow, outflow and net of one section; a missing net is inflow − outflow (each possibly derived). */
export function cashFlows(read: Reader, standard: AccountingStandard, section: CashFlowSection): Flows {
  const inflow = cashSubtotal(read, standard, section.inTotal, section.inGroup);
  const outflow = cashSubtotal(read, standard, section.outTotal, section.outGroup);
  return { inflow, outflow, net: read(section.net) ?? sub(inflow, outflow) };
}

type FlowsOfYear = (ctx: ReportContext, year: number) => Flows;

/** Per section, the functions `ctx.memo` keys the flows of a year and of its prior period by. */
const FLOWS_OF_YEAR = new Map<CashFlowSection, { current: FlowsOfYear; prior: FlowsOfYear }>();

function flowsOfYear(section: CashFlowSection) {
  let fns = FLOWS_OF_YEAR.get(section);
  if (fns === undefined) {
    fns = {
      current: (ctx, year) => cashFlows(currentReader(ctx, year, 'cash_flow'), ctx.report.standard, section),
      prior: (ctx, year) => cashFlows(priorReader(ctx, year, 'cash_flow'), ctx.report.standard, section),
    };
    FLOWS_OF_YEAR.set(section, fns);
  }
  return fns;
}

/** The section's flows of the year's own statement, computed once per report and year. */
export const flowsOf = (ctx: ReportContext, year: number, section: CashFlowSection): Flows =>
  ctx.memo(flowsOfYear(section).current, year);

/** The section's flows of the prior period (`ctx.priorPeriod`), computed once per report and year. */
export const priorFlowsOf = (ctx: ReportContext, year: number, section: CashFlowSection): Flows =>
  ctx.memo(flowsOfYear(section).prior, year);

/** The cash-flow lines a section reads, for field docs. */
export function sectionInputs(section: CashFlowSection, ...pick: ('in' | 'out' | 'net')[]): LineRef[] {
  const keys: string[] = [];
  for (const part of pick) {
    if (part === 'in' || part === 'net')
      keys.push(section.inTotal, ...catalogueKeys('cash_flow', [section.inGroup]));
    if (part === 'out' || part === 'net')
      keys.push(section.outTotal, ...catalogueKeys('cash_flow', [section.outGroup]));
    if (part === 'net') keys.push(section.net);
  }
  return refs('cash_flow', [...new Set(keys)]);
}

export const DERIVED_SUBTOTAL_NOTE =
  '小计行缺失时，由本准则格式中的明细行合计（主要明细行须齐全，否则为空）；净额行缺失时为流入小计 − 流出小计。';

// risk items

export function riskItem(
  rule: RiskRuleDoc,
  level: RiskLevel,
  vars: Readonly<Record<string, string>>,
): RiskItem {
  return { level, code: rule.code, message: fillTemplate(rule.message, vars) };
}

/** An amount in yuan as 万元 text for messages (`1234.56万元`). */
export const wanText = (amount: NonNullable<Num>): string => `${format2(toWan(amount)!)}万元`;

/** The info rule of a cash-flow module for years without a cash-flow statement. */
export function cashFlowMissingRule(slug: string, what: string): RiskRuleDoc {
  return {
    code: `${slug}.cash_flow_missing`,
    tiers: [{ level: 'info', threshold: 0 }],
    description: '有年度未提交现金流量表，相应年度的指标为空（数据提示，不计入风险）。',
    role: 'data_gap',
    gap: 'cash_flow_statement',
    message: `{years}未提交现金流量表，${what}无法计算。`,
  };
}

export function cashFlowMissingItems(ctx: ReportContext, rule: RiskRuleDoc): RiskItem[] {
  const missing = ctx.years.filter((year) => !ctx.hasSheet(year, 'cash_flow'));
  if (missing.length === 0) return [];
  return [riskItem(rule, 'info', { years: missing.map((y) => `${y}年`).join('、') })];
}

// indicator modules with hand-written rules

export interface CustomRiskRule {
  readonly doc: RiskRuleDoc;
  evaluate(ctx: ReportContext): RiskItem[];
}

/**
 * An indicator module whose risk rules do not all fit the builder's below/above/decline kinds. The custom rules'
 * items come first (in the given order), then those of the indicator rules.
 */
export function defineIndicatorModuleWithRules(
  def: IndicatorModuleDef,
  custom: readonly CustomRiskRule[],
): AnalysisModule {
  const base = defineIndicatorModule(def);
  return {
    ...base,
    riskRules: [...custom.map((c) => c.doc), ...base.riskRules],
    compute(ctx) {
      const { sp_result, risk_items } = base.compute(ctx);
      return { sp_result, risk_items: [...custom.flatMap((c) => c.evaluate(ctx)), ...risk_items] };
    },
  };
}

// two-part structure (current vs non-current)

export interface SplitPart {
  /** sp_result key of the amount; the share is `<key>_share`. */
  readonly key: string;
  readonly line: string;
  readonly label: string;
}

export interface SplitSpec {
  readonly sheet: SheetType;
  readonly base: SplitPart;
  readonly parts: readonly SplitPart[];
  /** The remainder: base − Σ parts (0 when the subtotals add up). */
  readonly remainder: { readonly key: string; readonly label: string };
}

/**
 * Amounts (万元) and shares of a base line for subtotal lines that should add up to it, plus a remainder so the
 * shares always sum to 100. The subtotals are the fundamental lines here, so a missing one makes the remainder
 * null (it would otherwise pose as “other”).
 */
export function splitMetrics(spec: SplitSpec): MetricDef[] {
  const read = (ctx: ReportContext, year: number, line: string) => ctx.line(year, spec.sheet, line);
  const remainder = (ctx: ReportContext, year: number) =>
    sub(read(ctx, year, spec.base.line), sum(spec.parts.map((p) => read(ctx, year, p.line))));
  const inputs = refs(spec.sheet, [spec.base.line, ...spec.parts.map((p) => p.line)]);
  const partsText = spec.parts.map((p) => p.label).join(' − ');
  const shareNote = `${spec.base.label}缺失、为零或为负时为空。`;
  return [
    ...spec.parts.map(
      (p): MetricDef => ({
        key: p.key,
        label: p.label,
        unit: '万元',
        formula: `年末${p.label} ÷ 10000`,
        inputs: refs(spec.sheet, [p.line]),
        compute: (ctx, year) => toWan(read(ctx, year, p.line)),
      }),
    ),
    {
      key: spec.remainder.key,
      label: spec.remainder.label,
      unit: '万元',
      formula: `(年末${spec.base.label} − ${partsText}) ÷ 10000`,
      inputs,
      note: '各合计行相符时为0；任一行缺失时为空。',
      compute: (ctx, year) => toWan(remainder(ctx, year)),
    },
    {
      key: spec.base.key,
      label: spec.base.label,
      unit: '万元',
      formula: `年末${spec.base.label} ÷ 10000`,
      inputs: refs(spec.sheet, [spec.base.line]),
      compute: (ctx, year) => toWan(read(ctx, year, spec.base.line)),
    },
    ...spec.parts.map(
      (p): MetricDef => ({
        key: `${p.key}_share`,
        label: `${p.label}占比`,
        unit: '%',
        formula: `年末${p.label} ÷ 年末${spec.base.label} × 100`,
        inputs: refs(spec.sheet, [p.line, spec.base.line]),
        note: shareNote,
        compute: (ctx, year) => shareOf(read(ctx, year, p.line), read(ctx, year, spec.base.line)),
      }),
    ),
    {
      key: `${spec.remainder.key}_share`,
      label: `${spec.remainder.label}占比`,
      unit: '%',
      formula: `(年末${spec.base.label} − ${partsText}) ÷ 年末${spec.base.label} × 100`,
      inputs,
      note: `与各项占比合计为100。${shareNote}`,
      compute: (ctx, year) => shareOf(remainder(ctx, year), read(ctx, year, spec.base.line)),
    },
  ];
}

/** Change rows of every year for the given lines (those present in at least one year). */
export function changeRowsByYear(ctx: ReportContext, sheet: SheetType, lines: readonly string[]) {
  const keys = presentKeys(ctx, sheet, lines);
  return new Map(ctx.years.map((year) => [year, changeRows(ctx, year, sheet, keys)]));
}

export const findRow = <T extends { key: string }>(rows: readonly T[], key: string): T | undefined =>
  rows.find((r) => r.key === key);

// line structure modules (shares of each detail line in a subtotal)

export interface LineStructureDef {
  readonly slug: string;
  readonly label: string;
  readonly description: string;
  readonly lines: readonly string[];
  readonly base: { readonly key: string; readonly label: string };
  readonly remainder: Remainder;
}

/**
 * A balance-sheet structure module: `<base key>` (万元) and `items: [{ key, label, amount, share }]` for each
 * detail line submitted in any year plus the remainder, for the latest year and in every series entry.
 */
export function defineLineStructureModule(def: LineStructureDef): AnalysisModule {
  const inputs = refs('balance', [...def.lines, def.base.key]);
  return {
    slug: def.slug,
    label: def.label,
    section: 'balance_sheet_analysis',
    description: def.description,
    kind: 'indicator',
    fields: [
      {
        key: def.base.key,
        label: def.base.label,
        unit: '万元',
        formula: `年末${def.base.label} ÷ 10000`,
        inputs: refs('balance', [def.base.key]),
      },
      {
        key: 'items[].amount',
        label: '项目金额',
        unit: '万元',
        formula: `年末余额 ÷ 10000；${def.remainder.label} = (${def.base.label} − 所列明细项目合计) ÷ 10000`,
        inputs,
        note: '列出任一提交年度出现过的明细行（按报表顺序），各年列表一致；某年缺失的行金额为空、不计入合计。items 同时出现在最新年度与 series 每个年度中。',
      },
      {
        key: 'items[].share',
        label: `占${def.base.label}比重`,
        unit: '%',
        formula: `项目年末余额 ÷ 年末${def.base.label} × 100`,
        inputs,
        note: `含差额项，各项占比合计为100；${def.base.label}缺失、为零或为负时为空。`,
      },
    ],
    riskRules: [],
    compute(ctx) {
      const keys = presentKeys(ctx, 'balance', def.lines);
      const sp_result = seriesLayout(ctx, (year) => {
        const { base, rows } = structureRows(
          currentReader(ctx, year, 'balance'),
          'balance',
          keys,
          def.base.key,
          def.remainder,
        );
        return { [def.base.key]: round2Wan(base), items: rows.map(roundStructureRow) };
      });
      return { sp_result, risk_items: [] };
    },
  };
}

/** Inflow, outflow and net (万元) of a cash-flow section and their change rates against the prior period. */
export function flowMetrics(section: CashFlowSection): MetricDef[] {
  const parts = [
    { key: 'cash_inflow', part: 'inflow', label: `${section.label}现金流入小计`, pick: 'in' },
    { key: 'cash_outflow', part: 'outflow', label: `${section.label}现金流出小计`, pick: 'out' },
    { key: 'net_cash_flow', part: 'net', label: `${section.label}产生的现金流量净额`, pick: 'net' },
  ] as const;
  const priorNote =
    '上年数取本年现金流量表的上年金额（重述后的比较数据，CAS 28）；未列示时取上一提交年度现金流量表的本年金额。上年数为零或缺失时为空；分母取绝对值；上年基数过小（tiny_base）或两期符号相反（sign_change）时为空并在 null_reasons 中说明。';
  return [
    ...parts.map(
      (p): MetricDef => ({
        key: p.key,
        label: p.label,
        unit: '万元',
        formula: `${p.label} ÷ 10000`,
        inputs: sectionInputs(section, p.pick),
        note: DERIVED_SUBTOTAL_NOTE,
        compute: (ctx, year) => toWan(flowsOf(ctx, year, section)[p.part]),
      }),
    ),
    ...parts.map(
      (p): MetricDef => ({
        key: `${p.key}_change_rate`,
        label: `${p.label}增长率`,
        unit: '%',
        formula: `(本年${p.label} − 上年${p.label}) ÷ |上年${p.label}| × 100`,
        inputs: sectionInputs(section, p.pick),
        note: priorNote,
        // Guarded like every change rate (materiality.ts): a tiny prior base or a change of sign gives null.
        compute: (ctx, year) =>
          guardedChangeRate(
            flowsOf(ctx, year, section)[p.part],
            priorFlowsOf(ctx, year, section)[p.part],
            priorScale(ctx, year, 'cash_flow'),
          ),
        nullReason: (ctx, year) =>
          growthNullReason(
            flowsOf(ctx, year, section)[p.part],
            priorFlowsOf(ctx, year, section)[p.part],
            priorScale(ctx, year, 'cash_flow'),
          ),
      }),
    ),
  ];
}

/** A cash-flow line in 万元. */
export function cashLineMetric(key: string, label: string): MetricDef {
  return {
    key,
    label,
    unit: '万元',
    formula: `${label} ÷ 10000`,
    inputs: [`cash_flow.${key}`],
    compute: (ctx, year) => toWan(ctx.line(year, 'cash_flow', key)),
  };
}

/**
 * Net operating cash flow ÷ net profit (净现比 / 盈余现金保障倍数). Null unless net profit is positive: over a loss
 * the quotient's sign inverts its meaning (more cash would read as a lower multiple).
 */
export const operatingCashToProfit = sharedCompute((ctx, year): Num => {
  const profit = ctx.line(year, 'income', 'net_profit');
  if (profit === null || !profit.greaterThan(0)) return null;
  return ratio(flowsOf(ctx, year, OPERATING).net, profit);
});
