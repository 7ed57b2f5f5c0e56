/**
 * Pure helpers shared by the enterprise-overview and income-statement modules: period readers, metric factories
 * for the recurring shapes (an amount in 万元, its year-on-year change rate, a change in points, a share) and
 * indicator modules with extra risk rules that look at more than one metric.
 */
import type { Decimal } from 'decimal.js';
import { findLineItem } from '../../../catalogue/lineItems.ts';
import type { RiskItem, RiskLevel, SheetType } from '../../../types.ts';
import type { ReportContext } from '../../context.ts';
import { type Num, num, pct, ppChange, sub, toWan } from '../../decimal.ts';
import { defineIndicatorModule, fillTemplate, type IndicatorModuleDef } from '../../indicator.ts';
import { growthNullReason, guardedChangeRate, priorScale } from '../../materiality.ts';
import type { AnalysisModule, FieldDoc, LineRef, MetricDef, RiskRuleDoc, RiskTier } from '../../module.ts';

/** The statements of one period, read line by line; a missing sheet or line reads as null. */
export interface Period {
  income(key: string): Num;
  balance(key: string): Num;
  cashFlow(key: string): Num;
  /**
   * `formula(this period)`, computed once per report and period (keyed by the formula's identity), so that the
   * metrics and change metrics built on one formula share its value.
   */
  value(formula: PeriodFormula): Num;
}

function periodReading(read: (sheet: SheetType, key: string) => Num): Period {
  const values = new Map<PeriodFormula, Num>();
  const period: Period = {
    income: (key) => read('income', key),
    balance: (key) => read('balance', key),
    cashFlow: (key) => read('cash_flow', key),
    value(formula) {
      let value = values.get(formula);
      if (value === undefined) {
        value = formula(period);
        values.set(formula, value);
      }
      return value;
    },
  };
  return period;
}

const yearPeriod = (ctx: ReportContext, year: number): Period =>
  periodReading((sheet, key) => ctx.line(year, sheet, key));

/**
 * `ctx.priorPeriod` as a period: this year's own previous column (the comparatives as restated, CAS 28), a line
 * without it read from the previous submitted year's statement.
 */
const comparedPeriod = (ctx: ReportContext, year: number): Period =>
  periodReading((sheet, key) => ctx.priorPeriod(year, sheet, key));

/** The year's own statements (current-year amounts, ending balances); one object per report and year. */
export function currentPeriod(ctx: ReportContext, year: number): Period {
  return ctx.memo(yearPeriod, year);
}

/**
 * The period compared against (`ctx.priorPeriod`): the year's own previous column (上年金额 / 年初余额), else the
 * previous submitted year's statement.
 */
export function priorPeriod(ctx: ReportContext, year: number): Period {
  return ctx.memo(comparedPeriod, year);
}

/** A value computed from the lines of one period. */
export type PeriodFormula = (p: Period) => Num;

const READERS: Record<SheetType, (p: Period, key: string) => Num> = {
  income: (p, key) => p.income(key),
  balance: (p, key) => p.balance(key),
  cash_flow: (p, key) => p.cashFlow(key),
};

function splitRef(ref: LineRef): [SheetType, string] {
  const dot = ref.indexOf('.');
  return [ref.slice(0, dot) as SheetType, ref.slice(dot + 1)];
}

/** Reads one statement line, e.g. `line('income.revenue')`. */
export function line(ref: LineRef): PeriodFormula {
  const [sheet, key] = splitRef(ref);
  const read = READERS[sheet];
  return (p) => read(p, key);
}

/** Chinese name of a statement line from the submission catalogue (the key itself when unknown). */
export function lineName(ref: LineRef): string {
  const [sheet, key] = splitRef(ref);
  return findLineItem(sheet, key)?.nameZh ?? key;
}

/**
 * Sum of the values with a missing value counting as 0 — an absent expense line means none was incurred — but
 * null when every value is missing, so a statement without any of the lines does not read as a zero total.
 */
export function sumPresent(values: readonly Num[]): Num {
  let total: Num = null;
  for (const v of values) {
    if (v !== null) total = total === null ? v : total.plus(v);
  }
  return total;
}

/** a ÷ |b| × 100: the sign of the result is the direction of a's effect whatever the sign of the base. */
export function pctOfAbs(a: Num, b: Num): Num {
  return pct(a, b === null ? null : b.abs());
}

/**
 * The share (%) of what the parts leave of the total: (total − Σ parts) ÷ total × 100, so that the parts' shares
 * and this remainder add up to 100. Null when the total or any part is missing, or the total is zero.
 */
export function remainderShare(total: Num, parts: readonly Num[]): Num {
  let rest: Num = total;
  for (const part of parts) rest = sub(rest, part);
  return pct(rest, total);
}

export const PRIOR_PERIOD_NOTE =
  '上期数取本年报表的上年金额（资产负债表为年初余额），即重述后的比较数据（CAS 28 追溯调整）；本年报表未列示该栏时取上一提交年度报表的本期金额（年末余额）。';

const CHANGE_RATE_NOTE = `${PRIOR_PERIOD_NOTE}任一期缺失或上期为零时为空；上期为负时以其绝对值为基数；上期基数过小（tiny_base）或两期符号相反（sign_change）时为空并在 null_reasons 中说明。`;

const PP_CHANGE_NOTE = `${PRIOR_PERIOD_NOTE}任一期比率为空时为空。`;

/** A metric of the year's own statements. */
export function periodMetric(doc: FieldDoc, formula: PeriodFormula): MetricDef {
  return { ...doc, compute: (ctx, year) => currentPeriod(ctx, year).value(formula) };
}

/** Year-on-year change rate (%) of a value: (this period − prior period) ÷ |prior period| × 100. */
export function changeRateMetric(doc: FieldDoc, formula: PeriodFormula): MetricDef {
  return {
    ...doc,
    note: doc.note ?? CHANGE_RATE_NOTE,
    compute: (ctx, year) =>
      guardedChangeRate(
        currentPeriod(ctx, year).value(formula),
        priorPeriod(ctx, year).value(formula),
        priorScale(ctx, year, 'income'),
      ),
    nullReason: (ctx, year) =>
      growthNullReason(
        currentPeriod(ctx, year).value(formula),
        priorPeriod(ctx, year).value(formula),
        priorScale(ctx, year, 'income'),
      ),
  };
}

/** Change of a percentage against the prior period, in percentage points. */
export function ppChangeMetric(doc: FieldDoc, formula: PeriodFormula): MetricDef {
  return {
    ...doc,
    note: doc.note ?? PP_CHANGE_NOTE,
    compute: (ctx, year) =>
      ppChange(currentPeriod(ctx, year).value(formula), priorPeriod(ctx, year).value(formula)),
  };
}

/** One formula per line for its amount in 万元, so that every module showing the amount shares one memo. */
const WAN_AMOUNTS = new Map<LineRef, PeriodFormula>();

function wanAmountOf(ref: LineRef): PeriodFormula {
  let formula = WAN_AMOUNTS.get(ref);
  if (formula === undefined) {
    const read = line(ref);
    formula = (p) => toWan(read(p));
    WAN_AMOUNTS.set(ref, formula);
  }
  return formula;
}

/** A statement line in 万元, keyed `key` (the line's own key unless given). */
export function amountMetric(ref: LineRef, options: { key?: string; label?: string; note?: string } = {}) {
  const label = options.label ?? lineName(ref);
  return periodMetric(
    {
      key: options.key ?? splitRef(ref)[1],
      label,
      unit: '万元',
      formula: `${label} ÷ 10000`,
      inputs: [ref],
      ...(options.note === undefined ? {} : { note: options.note }),
    },
    wanAmountOf(ref),
  );
}

/** Year-on-year change rate of a statement line, keyed `<key>_change_rate`. */
export function lineChangeRateMetric(
  ref: LineRef,
  options: { key?: string; label?: string } = {},
): MetricDef {
  const label = options.label ?? lineName(ref);
  const [sheet, key] = splitRef(ref);
  return {
    key: `${options.key ?? key}_change_rate`,
    label: `${label}变动率`,
    unit: '%',
    formula: `(本期${label} − 上期${label}) ÷ |上期${label}| × 100`,
    inputs: [ref],
    note: CHANGE_RATE_NOTE,
    // changeRateMetric(…, line(ref)) with the change rate shared by every module that shows this line's.
    compute: (ctx, year) => ctx.lineChangeRate(year, sheet, key),
    nullReason: (ctx, year) => ctx.lineChangeReason(year, sheet, key),
  };
}

/** The amount (万元) of a statement line followed by its change rate (%). */
export function amountAndChange(
  ref: LineRef,
  options: { key?: string; label?: string; note?: string } = {},
): MetricDef[] {
  return [amountMetric(ref, options), lineChangeRateMetric(ref, options)];
}

function isMetric(field: FieldDoc): field is MetricDef {
  return typeof (field as Partial<MetricDef>).compute === 'function';
}

/**
 * A metric of another module, used as it stands (same key, label, formula and computation), so that an indicator
 * shown in two places cannot drift apart.
 */
export function borrowMetric(module: AnalysisModule, key: string): MetricDef {
  const field = module.fields.find((f) => f.key === key);
  if (!field || !isMetric(field)) throw new Error(`${module.slug} has no computed metric ${key}`);
  return field;
}

/** (营业收入 − 营业成本) ÷ 营业收入 × 100 of one period: profitability's gross margin, for any period. */
export const grossMarginOf: PeriodFormula = (p) =>
  pct(sub(p.income('revenue'), p.income('operating_cost')), p.income('revenue'));

/** 期间费用: the four expense lines of the income statement, in statement order. */
export const PERIOD_EXPENSES = [
  { key: 'sales_expenses', label: '销售费用' },
  { key: 'administrative_expenses', label: '管理费用' },
  { key: 'rd_expenses', label: '研发费用' },
  { key: 'financial_expenses', label: '财务费用' },
] as const;

export const PERIOD_EXPENSE_INPUTS: readonly LineRef[] = PERIOD_EXPENSES.map(
  (e) => `income.${e.key}` as const,
);

/**
 * 期间费用合计: an absent line counts as 0 (small enterprises have no separate 研发费用: research costs sit in
 * 管理费用), null only when all four are absent. 财务费用 enters with its sign (net interest income is negative).
 */
export const totalPeriodExpensesOf: PeriodFormula = (p) =>
  sumPresent(PERIOD_EXPENSES.map((e) => p.income(e.key)));

export const totalPeriodExpensesMetric: MetricDef = periodMetric(
  {
    key: 'total_period_expenses',
    label: '期间费用合计',
    unit: '万元',
    formula: '(销售费用 + 管理费用 + 研发费用 + 财务费用) ÷ 10000',
    inputs: PERIOD_EXPENSE_INPUTS,
    note: '缺失的费用行按零计（小企业的研究费用含在管理费用中）；四项均缺失时为空。财务费用按其符号计入。',
  },
  (p) => toWan(p.value(totalPeriodExpensesOf)),
);

/** 期间费用率: period expenses ÷ revenue × 100. */
export const periodExpenseRatioOf: PeriodFormula = (p) =>
  pct(p.value(totalPeriodExpensesOf), p.income('revenue'));

export const periodExpenseRatioMetric: MetricDef = periodMetric(
  {
    key: 'period_expense_ratio',
    label: '期间费用率',
    unit: '%',
    formula: '期间费用合计 ÷ 营业收入 × 100',
    inputs: [...PERIOD_EXPENSE_INPUTS, 'income.revenue'],
  },
  periodExpenseRatioOf,
);

/** A risk rule that looks at more than one metric (or at the report itself); documented like every rule. */
export interface CustomRiskRule extends RiskRuleDoc {
  /** The items the rule raises for the report (evaluated on the released year, like the indicator rules). */
  evaluate(ctx: ReportContext): RiskItem[];
}

export interface ModuleDef extends IndicatorModuleDef {
  customRules?: readonly CustomRiskRule[];
}

/** An indicator module (`defineIndicatorModule`) whose risk items also include those of `customRules`. */
export function defineModule(def: ModuleDef): AnalysisModule {
  const { customRules = [], ...indicatorDef } = def;
  const base = defineIndicatorModule(indicatorDef);
  for (const rule of [...base.riskRules, ...customRules]) {
    if (!rule.code.startsWith(`${def.slug}.`)) throw new Error(`${def.slug}: rule code ${rule.code}`);
  }
  if (customRules.length === 0) return base;
  return {
    ...base,
    riskRules: [
      ...base.riskRules,
      ...customRules.map(({ code, tiers, description, message, role, gap }) => ({
        code,
        tiers,
        description,
        message,
        ...(role === undefined ? {} : { role }),
        ...(gap === undefined ? {} : { gap }),
      })),
    ],
    compute(ctx) {
      const { sp_result, risk_items } = base.compute(ctx);
      return { sp_result, risk_items: [...risk_items, ...customRules.flatMap((rule) => rule.evaluate(ctx))] };
    },
  };
}

/** The first (most severe) tier whose threshold the test accepts. */
export function findTier(
  tiers: readonly RiskTier[],
  test: (threshold: Decimal) => boolean,
): RiskTier | undefined {
  return tiers.find((t) => test(num(t.threshold)));
}

/** One risk item of a rule, its message filled from the template. */
export function raise(rule: RiskRuleDoc, level: RiskLevel, vars: Readonly<Record<string, string>>): RiskItem {
  return { level, code: rule.code, message: fillTemplate(rule.message, vars) };
}
