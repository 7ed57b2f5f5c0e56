/**
 * 报表勾稽核对: the cash flow statement against the balance sheet and the income statement.
 *
 * 货币资金 (balance sheet) and 现金及现金等价物 (cash flow statement) differ legitimately under CAS 31: time deposits
 * over three months, pledged and statutory deposits are in 货币资金 but are not cash equivalents. That difference
 * is information — the non-equivalent share of 货币资金 (a large share means liquidity is weaker than 货币资金
 * suggests: NON_EQUIVALENT_CASH_RULE) — never a mismatch. Real breaks stay risks, each reported once:
 * - the cash flow statement's own identity (期初余额 + 净增加额 = 期末余额) is checked by statement_arithmetic;
 * - adjacent years: 期初现金及现金等价物余额 of a year against the previous submitted year's 期末余额
 *   (CASH_CARRY_RULE), graded like a restated comparative by its share of the previous year's total assets
 *   (info below 1%, warning from 1%, danger from 5%), differences below 1 yuan or 0.00 万元 not counted.
 *
 * Ratios (reported every year, judged on the released year like the indicator modules, never a mismatch):
 * - 盈余现金保障倍数 = 经营活动现金流量净额 ÷ 净利润 (only for a positive net profit);
 * - 收现比 = 销售商品、提供劳务收到的现金 ÷ 营业收入 × 100.
 */
import type { RiskItem } from '../../../types.ts';
import type { ReportContext } from '../../context.ts';
import { format2, type Num, num, pct, ratio, round2, round2Wan, sub, toWan } from '../../decimal.ts';
import { fillTemplate } from '../../indicator.ts';
import type { AnalysisModule, FieldDoc, ModuleResult, RiskRuleDoc } from '../../module.ts';
import {
  isNegligible,
  lineName,
  materialityShare,
  RESTATEMENT_TIERS,
  restatementCause,
  restatementLevel,
  shareText,
  wanText,
} from './shared.ts';

export const CASH_CARRY_RULE: RiskRuleDoc = {
  code: 'comparative.cash_carry_mismatch',
  tiers: RESTATEMENT_TIERS,
  description:
    '本年现金流量表“期初现金及现金等价物余额”与上年现金流量表“期末现金及现金等价物余额”不一致（期初数重述或录入错误），按差额占上年末资产总计的比例分级：低于1%为提示，1%及以上为警告，5%及以上为危险；差额不足1元或折合不足0.005万元的不计。',
  message:
    '{year}年现金流量表“期初现金及现金等价物余额”为{cash_flow_amount}万元，与{prior_year}年现金流量表“期末现金及现金等价物余额”{balance_amount}万元不一致，差额{difference}万元{share}；可能原因：{cause}。',
};

/** Share of 货币资金 that is not cash or a cash equivalent above which liquidity reads weaker than it looks. */
export const NON_EQUIVALENT_CASH_WARNING_PCT = 50;

export const NON_EQUIVALENT_CASH_RULE: RiskRuleDoc = {
  code: 'comparative.non_equivalent_cash_high',
  tiers: [
    { level: 'warning', threshold: NON_EQUIVALENT_CASH_WARNING_PCT },
    { level: 'info', threshold: NON_EQUIVALENT_CASH_WARNING_PCT },
  ],
  description:
    '货币资金中不属于现金及现金等价物的部分（三个月以上定期存款、保证金等受限资金，CAS 31）超过货币资金的50%时提示其占比（信息）；仅当现金及现金等价物不足以覆盖短期借款与一年内到期的非流动负债时为警告：可随时动用的资金少于短期债务。定期存款本身是正常的理财安排，不作为风险。',
  message:
    '{year}年末货币资金{cash}万元中，现金及现金等价物为{equivalents}万元，其余{non_equivalent}万元（占货币资金的{value}%，超过{threshold}%）为三个月以上定期存款或受限资金等非现金等价物（CAS 31）{coverage}',
};

/** Below 0: profitable yet operating cash flows out (warning); below 0.5: thin cash backing (info). */
export const OPERATING_CASH_QUALITY_RULE: RiskRuleDoc = {
  code: 'comparative.operating_cash_to_net_profit_low',
  tiers: [
    { level: 'warning', threshold: 0 },
    { level: 'info', threshold: 0.5 },
  ],
  description:
    '净利润为正时，盈余现金保障倍数（经营活动现金流量净额÷净利润）低于0为警告（盈利但经营现金净流出），低于0.5为提示（利润的现金含量偏低）。',
  message:
    '{year}年净利润为{net_profit}万元，经营活动现金流量净额为{ocf}万元，盈余现金保障倍数为{value}，低于{threshold}，{comment}。',
};

/**
 * 收现比 bands. Cash received includes output VAT (13% for most goods), so full collection of the year's sales
 * reads about 113%. Below 80%: sales not turning into cash (credit sales growing); above 130%: collection of
 * earlier receivables or a surge of advance receipts, or revenue recognised short — both worth a look, neither
 * an error by itself.
 */
export const SALES_CASH_RATIO_LOW_RULE: RiskRuleDoc = {
  code: 'comparative.sales_cash_ratio_low',
  tiers: [{ level: 'info', threshold: 80 }],
  description: '收现比（销售商品、提供劳务收到的现金÷营业收入）低于80%，营业收入的现金回收偏弱。',
  message:
    '{year}年销售商品、提供劳务收到的现金与营业收入之比（收现比）为{value}%，低于{threshold}%，营业收入的现金回收偏弱，需关注应收款项的增长。',
};

export const SALES_CASH_RATIO_HIGH_RULE: RiskRuleDoc = {
  code: 'comparative.sales_cash_ratio_high',
  tiers: [{ level: 'info', threshold: 130 }],
  description:
    '收现比高于130%（含增值税的正常全额回款约为113%），可能为收回前期应收款、预收款项大幅增加或收入确认不充分，需核实。',
  message:
    '{year}年销售商品、提供劳务收到的现金与营业收入之比（收现比）为{value}%，高于{threshold}%，可能为收回前期应收款、预收款项增加或收入确认不充分，请核实。',
};

export const COMPARATIVE_NOT_SUBMITTED_RULE: RiskRuleDoc = {
  code: 'comparative.not_submitted',
  tiers: [{ level: 'info', threshold: 0 }],
  description: '所有年度均未提交现金流量表，无法将现金流量表与资产负债表、利润表勾稽核对。',
  message: '未提交现金流量表，无法将现金流量表与资产负债表、利润表进行勾稽核对。',
  role: 'data_gap',
  gap: 'cash_flow_statement',
};

export interface CashMismatch {
  year: number;
  prior_year: number;
  item: string;
  item_label: string;
  balance_item: string;
  cash_flow_amount: number | null;
  balance_amount: number | null;
  difference: number | null;
}

interface YearRow {
  net_increase_cash: Num;
  cash_change: Num;
  cash_difference: Num;
  non_equivalent_cash: Num;
  non_equivalent_cash_share: Num;
  ocf_to_net_profit: Num;
  sales_cash_ratio: Num;
}

const ROW_KEYS = [
  'net_increase_cash',
  'cash_change',
  'cash_difference',
  'non_equivalent_cash',
  'non_equivalent_cash_share',
  'ocf_to_net_profit',
  'sales_cash_ratio',
] as const;

const FIELDS: readonly FieldDoc[] = [
  {
    key: 'checked_years',
    label: '核对的年度数',
    unit: '个',
    formula: '提交现金流量表的年度数',
    inputs: ['cash_flow.*'],
    note: '任何年度均未提交现金流量表时为空。',
  },
  {
    key: 'checked_pairs',
    label: '核对的勾稽关系数',
    unit: '个',
    formula: '本年期初现金及现金等价物余额与上一年度期末余额均存在的年度数',
    inputs: ['cash_flow.cash_ending', 'cash_flow.cash_beginning'],
  },
  {
    key: 'mismatch_count',
    label: '不一致组数',
    unit: '个',
    formula: '本年期初余额 ≠ 上年期末余额的年度数（差额不足1元或折合不足0.005万元的不计）',
    inputs: ['cash_flow.cash_ending', 'cash_flow.cash_beginning'],
  },
  {
    key: 'mismatches[].cash_flow_amount',
    label: '本年期初现金及现金等价物余额',
    unit: '万元',
    formula: '本年现金流量表期初现金及现金等价物余额 ÷ 10000',
    inputs: ['cash_flow.cash_beginning'],
  },
  {
    key: 'mismatches[].balance_amount',
    label: '上年期末现金及现金等价物余额',
    unit: '万元',
    formula: '上年现金流量表期末现金及现金等价物余额 ÷ 10000（字段名沿用 balance_amount）',
    inputs: ['cash_flow.cash_ending'],
  },
  {
    key: 'mismatches[].difference',
    label: '差额',
    unit: '万元',
    formula: '(本年期初余额 − 上年期末余额) ÷ 10000',
    inputs: ['cash_flow.cash_ending', 'cash_flow.cash_beginning'],
  },
  {
    key: 'net_increase_cash',
    label: '现金及现金等价物净增加额',
    unit: '万元',
    formula: '现金流量表现金及现金等价物净增加额 ÷ 10000',
    inputs: ['cash_flow.net_increase_cash'],
  },
  {
    key: 'cash_change',
    label: '货币资金增加额',
    unit: '万元',
    formula: '(货币资金年末余额 − 货币资金年初余额) ÷ 10000（同一年度资产负债表）',
    inputs: ['balance.cash_and_equivalents'],
  },
  {
    key: 'cash_difference',
    label: '现金净增加额与货币资金增加额之差',
    unit: '万元',
    formula: '(现金及现金等价物净增加额 − 货币资金增加额) ÷ 10000',
    inputs: ['cash_flow.net_increase_cash', 'balance.cash_and_equivalents'],
    note: '信息项，不作为不一致：受限资金与三个月以上定期存款的变动使两者合理不同（CAS 31）。',
  },
  {
    key: 'non_equivalent_cash',
    label: '非现金等价物的货币资金',
    unit: '万元',
    formula: '(年末货币资金 − 期末现金及现金等价物余额) ÷ 10000',
    inputs: ['balance.cash_and_equivalents', 'cash_flow.cash_ending'],
    note: '受限资金、三个月以上定期存款等；为负时表示货币资金以外另有现金等价物。任一项缺失时为空。',
  },
  {
    key: 'non_equivalent_cash_share',
    label: '非现金等价物占货币资金比例',
    unit: '%',
    formula: '(年末货币资金 − 期末现金及现金等价物余额) ÷ 年末货币资金 × 100',
    inputs: ['balance.cash_and_equivalents', 'cash_flow.cash_ending'],
    note: '货币资金小于或等于零时为空；超过50%时提示流动性弱于账面（comparative.non_equivalent_cash_high）。',
  },
  {
    key: 'ocf_to_net_profit',
    label: '盈余现金保障倍数',
    unit: '倍',
    formula: '经营活动产生的现金流量净额 ÷ 净利润',
    inputs: ['cash_flow.net_cf_operating', 'income.net_profit'],
    note: '净利润小于或等于零时为空（亏损下的比值无经济含义）。',
  },
  {
    key: 'sales_cash_ratio',
    label: '收现比',
    unit: '%',
    formula: '销售商品、提供劳务收到的现金 ÷ 营业收入 × 100',
    inputs: ['cash_flow.sales_cash', 'income.revenue'],
    note: '营业收入小于或等于零时为空。收到的现金含增值税，全额回款约为113%。',
  },
];

export const comparativeCheckModule: AnalysisModule = {
  slug: 'comparative',
  label: '报表勾稽核对',
  section: 'data_check',
  description:
    '现金流量表与资产负债表、利润表的勾稽核对：相邻年度期初/期末现金及现金等价物余额的衔接，货币资金中非现金等价物的比例（信息，CAS 31下的合理差异），以及盈余现金保障倍数与收现比。',
  kind: 'check',
  fields: FIELDS,
  riskRules: [
    CASH_CARRY_RULE,
    NON_EQUIVALENT_CASH_RULE,
    OPERATING_CASH_QUALITY_RULE,
    SALES_CASH_RATIO_LOW_RULE,
    SALES_CASH_RATIO_HIGH_RULE,
    COMPARATIVE_NOT_SUBMITTED_RULE,
  ],
  compute: checkComparative,
};

function yearRow(ctx: ReportContext, year: number): YearRow {
  const cf = (key: string) => ctx.line(year, 'cash_flow', key);
  const netIncrease = cf('net_increase_cash');
  const cashChange = sub(
    ctx.line(year, 'balance', 'cash_and_equivalents'),
    ctx.prior(year, 'balance', 'cash_and_equivalents'),
  );
  const netProfit = ctx.line(year, 'income', 'net_profit');
  const revenue = ctx.line(year, 'income', 'revenue');
  const cash = ctx.line(year, 'balance', 'cash_and_equivalents');
  const nonEquivalent = sub(cash, cf('cash_ending'));
  return {
    net_increase_cash: toWan(netIncrease),
    cash_change: toWan(cashChange),
    cash_difference: toWan(sub(netIncrease, cashChange)),
    non_equivalent_cash: toWan(nonEquivalent),
    non_equivalent_cash_share: cash === null || cash.lessThanOrEqualTo(0) ? null : pct(nonEquivalent, cash),
    ocf_to_net_profit:
      netProfit === null || netProfit.lessThanOrEqualTo(0) ? null : ratio(cf('net_cf_operating'), netProfit),
    sales_cash_ratio:
      revenue === null || revenue.lessThanOrEqualTo(0) ? null : pct(cf('sales_cash'), revenue),
  };
}

const roundRow = (row: YearRow): Record<string, number | null> =>
  Object.fromEntries(ROW_KEYS.map((key) => [key, round2(row[key])]));

function checkComparative(ctx: ReportContext): ModuleResult {
  const rows = new Map(ctx.years.map((year) => [year, yearRow(ctx, year)]));
  const latest = roundRow(rows.get(ctx.latestYear)!);
  const series = ctx.years.map((year) => ({ year, ...roundRow(rows.get(year)!) }));

  if (!ctx.years.some((y) => ctx.hasSheet(y, 'cash_flow'))) {
    return {
      sp_result: {
        released_year: ctx.latestYear,
        checked_years: null,
        checked_pairs: null,
        mismatch_count: null,
        consistent: null,
        summary: '未提交现金流量表，无法进行报表勾稽核对。',
        mismatches: [],
        ...latest,
        series,
      },
      risk_items: [
        {
          level: 'info',
          code: COMPARATIVE_NOT_SUBMITTED_RULE.code,
          message: COMPARATIVE_NOT_SUBMITTED_RULE.message,
        },
      ],
    };
  }

  const mismatches: CashMismatch[] = [];
  const risk_items: RiskItem[] = [];
  let checkedYears = 0;
  let checkedPairs = 0;

  for (const year of ctx.years) {
    if (!ctx.hasSheet(year, 'cash_flow')) continue;
    checkedYears += 1;
    const priorYear = ctx.previousYear(year);
    if (priorYear === null) continue;
    const opening = ctx.line(year, 'cash_flow', 'cash_beginning');
    const previousClosing = ctx.line(priorYear, 'cash_flow', 'cash_ending');
    if (opening === null || previousClosing === null) continue;
    checkedPairs += 1;
    const difference = opening.minus(previousClosing);
    if (isNegligible(difference, 1)) continue;
    mismatches.push({
      year,
      prior_year: priorYear,
      item: 'cash_beginning',
      item_label: lineName('cash_flow', 'cash_beginning'),
      balance_item: `${priorYear}年${lineName('cash_flow', 'cash_ending')}`,
      cash_flow_amount: round2Wan(opening),
      balance_amount: round2Wan(previousClosing),
      difference: round2Wan(difference),
    });
    const share = materialityShare(difference, ctx.line(priorYear, 'balance', 'total_assets'));
    risk_items.push({
      level: restatementLevel(share),
      code: CASH_CARRY_RULE.code,
      message: fillTemplate(CASH_CARRY_RULE.message, {
        year: String(year),
        prior_year: String(priorYear),
        cash_flow_amount: wanText(opening),
        balance_amount: wanText(previousClosing),
        difference: wanText(difference),
        share: shareText(share, `${priorYear}年末资产总计`),
        cause: restatementCause(null),
      }),
    });
  }

  const nonEquivalentItem = nonEquivalentRisk(ctx, rows.get(ctx.latestYear)!);
  if (nonEquivalentItem) risk_items.push(nonEquivalentItem);
  risk_items.push(...ratioRisks(ctx, rows.get(ctx.latestYear)!));

  return {
    sp_result: {
      released_year: ctx.latestYear,
      checked_years: checkedYears,
      checked_pairs: checkedPairs,
      mismatch_count: mismatches.length,
      consistent: checkedPairs === 0 ? null : mismatches.length === 0,
      summary: summarise(checkedYears, checkedPairs, mismatches.length),
      mismatches,
      ...latest,
      series,
    },
    risk_items,
  };
}

/** The non-equivalent share of 货币资金, on the released year. */
function nonEquivalentRisk(ctx: ReportContext, row: YearRow): RiskItem | null {
  const share = row.non_equivalent_cash_share;
  if (share === null || !share.greaterThan(num(NON_EQUIVALENT_CASH_WARNING_PCT))) return null;
  const year = ctx.latestYear;
  const cash = ctx.line(year, 'balance', 'cash_and_equivalents')!;
  const equivalents = ctx.line(year, 'cash_flow', 'cash_ending')!;
  // Short-term debt the readily available cash has to meet: 短期借款 + 一年内到期的非流动负债.
  const borrowings = ctx.line(year, 'balance', 'short_term_borrowings');
  const due = ctx.line(year, 'balance', 'non_current_liabilities_due_within_1y');
  const shortDebt = borrowings === null && due === null ? null : (borrowings ?? num(0)).plus(due ?? num(0));
  const short = shortDebt !== null && equivalents.lessThan(shortDebt);
  return {
    level: short ? 'warning' : 'info',
    code: NON_EQUIVALENT_CASH_RULE.code,
    message: fillTemplate(NON_EQUIVALENT_CASH_RULE.message, {
      year: String(year),
      cash: wanText(cash),
      equivalents: wanText(equivalents),
      non_equivalent: wanText(cash.minus(equivalents)),
      value: format2(share),
      threshold: String(NON_EQUIVALENT_CASH_WARNING_PCT),
      coverage: short
        ? `；现金及现金等价物低于短期借款与一年内到期的非流动负债合计${wanText(shortDebt)}万元，可随时动用的资金不足以覆盖短期债务。`
        : shortDebt === null
          ? '。'
          : `；现金及现金等价物足以覆盖短期借款与一年内到期的非流动负债合计${wanText(shortDebt)}万元。`,
    }),
  };
}

/** The ratio rules, on the released year. */
function ratioRisks(ctx: ReportContext, row: YearRow): RiskItem[] {
  const year = ctx.latestYear;
  const items: RiskItem[] = [];
  const quality = row.ocf_to_net_profit;
  if (quality !== null) {
    const tier = OPERATING_CASH_QUALITY_RULE.tiers.find((t) => quality.lessThan(num(t.threshold)));
    if (tier) {
      items.push({
        level: tier.level,
        code: OPERATING_CASH_QUALITY_RULE.code,
        message: fillTemplate(OPERATING_CASH_QUALITY_RULE.message, {
          year: String(year),
          net_profit: wanText(ctx.line(year, 'income', 'net_profit')!),
          ocf: wanText(ctx.line(year, 'cash_flow', 'net_cf_operating')!),
          value: format2(quality),
          threshold: String(tier.threshold),
          comment:
            tier.level === 'warning'
              ? '企业盈利但经营活动现金净流出，利润缺乏现金支撑'
              : '利润的现金含量偏低',
        }),
      });
    }
  }
  const salesCash = row.sales_cash_ratio;
  if (salesCash !== null) {
    const low = SALES_CASH_RATIO_LOW_RULE.tiers[0]!;
    const high = SALES_CASH_RATIO_HIGH_RULE.tiers[0]!;
    const rule = salesCash.lessThan(num(low.threshold))
      ? SALES_CASH_RATIO_LOW_RULE
      : salesCash.greaterThan(num(high.threshold))
        ? SALES_CASH_RATIO_HIGH_RULE
        : null;
    if (rule) {
      items.push({
        level: rule.tiers[0]!.level,
        code: rule.code,
        message: fillTemplate(rule.message, {
          year: String(year),
          value: format2(salesCash),
          threshold: String(rule.tiers[0]!.threshold),
        }),
      });
    }
  }
  return items;
}

function summarise(years: number, pairs: number, mismatchCount: number): string {
  if (pairs === 0)
    return '没有可衔接核对的相邻年度现金流量表（需连续两个年度的期初、期末现金及现金等价物余额）。';
  const scope = `共核对${years}个年度现金流量表中${pairs}组相邻年度期初与上年期末现金余额的衔接`;
  return mismatchCount === 0 ? `${scope}，全部一致。` : `${scope}，发现${mismatchCount}组不一致。`;
}
