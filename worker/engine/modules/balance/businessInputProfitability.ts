/**
 * 投入产出效率: returns on the resources put into the business — total asset return (总资产报酬率), cost-expense
 * profit margin (成本费用利润率), revenue per employee and the cash backing of profit (盈余现金保障倍数) — and an
 * indicative overall score banding the three SASAC-benchmarked indicators against published standard values.
 */
import type { Decimal } from 'decimal.js';
import type { ReportContext } from '../../context.ts';
import { add, type Num, num, pct, ratio, sum, toWan } from '../../decimal.ts';
import { defineIndicatorModule } from '../../indicator.ts';
import type { FieldDoc, MetricDef } from '../../module.ts';
import { profitabilityModule } from '../profitability.ts';
import { OPERATING, operatingCashToProfit, sectionInputs } from './shared.ts';

const isMetric = (field: FieldDoc): field is MetricDef =>
  typeof (field as Partial<MetricDef>).compute === 'function';

/** 成本费用利润率 exactly as the profitability module computes it (one formula, one place). */
const costExpenseProfitMargin = profitabilityModule.fields.find(
  (f): f is MetricDef => f.key === 'cost_expense_profit_margin' && isMetric(f),
);
if (!costExpenseProfitMargin)
  throw new Error('profitability module has no cost_expense_profit_margin metric');

/**
 * 国资委 企业绩效评价标准值, 全国国有企业·全行业, 优秀/良好/平均/较低/较差 (old 企业效绩评价 layout, edition year not
 * stated; third-party transcription — reference notes cn_performance_eval_formulas.md §3b). Indicative only.
 */
export const SASAC_ALL_INDUSTRY_STANDARDS = {
  total_asset_return: [7.7, 5.9, 3.4, 1.1, -3.3],
  cost_expense_profit_margin: [11.9, 8.3, 4.6, 0.1, -12.4],
  earnings_cash_coverage: [8.1, 5.2, 1.5, 0.4, -3.8],
} as const;
type Standards = readonly [number, number, number, number, number];

/** Scores at 优秀/良好/平均/较低/较差. */
const BAND_SCORES = [100, 75, 50, 25, 0] as const;

/**
 * 0–100: 100 at or above 优秀, 0 at or below 较差, linear between adjacent standard values (良好 75, 平均 50,
 * 较低 25) — a simplified 功效系数法.
 */
export function bandScore(value: Num, standards: Standards): Num {
  if (value === null) return null;
  if (value.greaterThanOrEqualTo(num(standards[0]))) return num(100);
  for (let i = 0; i < 4; i++) {
    const hi = num(standards[i]!);
    const lo = num(standards[i + 1]!);
    if (value.greaterThanOrEqualTo(lo)) {
      return value
        .minus(lo)
        .dividedBy(hi.minus(lo))
        .times(25)
        .plus(BAND_SCORES[i + 1]!);
    }
  }
  return num(0);
}

const income = (ctx: ReportContext, year: number, key: string) => ctx.line(year, 'income', key);

/** (利润总额 + 利息费用) ÷ 平均资产总额 × 100; a missing interest line counts as 0 (no borrowing cost reported). */
function totalAssetReturn(ctx: ReportContext, year: number): Num {
  const interest = income(ctx, year, 'interest_expense');
  const ebit =
    interest === null ? income(ctx, year, 'total_profit') : add(income(ctx, year, 'total_profit'), interest);
  return pct(ebit, ctx.averageBalance(year, 'total_assets'));
}

/** enterprise_info.employee_count when it is a positive integer. */
function employeeCount(ctx: ReportContext): Decimal | null {
  const text = ctx.report.enterpriseInfo?.employee_count?.trim();
  if (!text || !/^\d+$/.test(text)) return null;
  const n = num(text);
  return n.greaterThan(0) ? n : null;
}

type Scored = keyof typeof SASAC_ALL_INDUSTRY_STANDARDS;
const SCORED: Record<Scored, (ctx: ReportContext, year: number) => Num> = {
  total_asset_return: totalAssetReturn,
  cost_expense_profit_margin: (ctx, year) => costExpenseProfitMargin.compute(ctx, year),
  earnings_cash_coverage: operatingCashToProfit,
};
const SCORED_LABELS: Record<Scored, string> = {
  total_asset_return: '总资产报酬率',
  cost_expense_profit_margin: '成本费用利润率',
  earnings_cash_coverage: '盈余现金保障倍数',
};
const score = (key: Scored) => (ctx: ReportContext, year: number) =>
  bandScore(SCORED[key](ctx, year), SASAC_ALL_INDUSTRY_STANDARDS[key]);

const SCORE_NOTE =
  '百分制得分（0–100，以%表示得分率）：达到优秀值得100分，良好值75分，平均值50分，较低值25分，较差值及以下0分，相邻标准值之间线性插值。标准值为国资委企业绩效评价标准值（全国国有企业·全行业，旧版企业效绩评价格式，年份未注明，第三方转录），仅作参考。';

const scoreMetric = (key: Scored): MetricDef => {
  const s = SASAC_ALL_INDUSTRY_STANDARDS[key];
  return {
    key: `${key}_score`,
    label: `${SCORED_LABELS[key]}得分`,
    unit: '%',
    formula: `按标准值 优秀${s[0]}/良好${s[1]}/平均${s[2]}/较低${s[3]}/较差${s[4]} 分档插值计分`,
    inputs: [],
    note: `${SCORE_NOTE}指标为空时得分为空。`,
    compute: score(key),
  };
};

const INCOME_COST_INPUTS = costExpenseProfitMargin.inputs;
const TAR_INPUTS = ['income.total_profit', 'income.interest_expense', 'balance.total_assets'] as const;
const ECC_INPUTS = [...sectionInputs(OPERATING, 'net'), 'income.net_profit'] as const;

export const businessInputProfitabilityModule = defineIndicatorModule({
  slug: 'business_input_profitability',
  label: '投入产出效率',
  section: 'comprehensive_analysis',
  description:
    '总资产报酬率、成本费用利润率、人均营业收入、盈余现金保障倍数，以及按国资委全行业标准值分档计分的投入产出综合评分（参考）。',
  metrics: [
    {
      key: 'total_asset_return',
      label: '总资产报酬率',
      unit: '%',
      formula: '(利润总额 + 利息费用) ÷ ((年初资产总计 + 年末资产总计) ÷ 2) × 100',
      inputs: TAR_INPUTS,
      note: '国资委绩效评价口径。利息费用行缺失时按零计（小企业利息费用为净额，照常加回）；平均资产总额为零或缺失时为空。',
      compute: totalAssetReturn,
    },
    {
      ...costExpenseProfitMargin,
      note: `${costExpenseProfitMargin.note ?? ''}与盈利能力分析模块同一公式。`,
    },
    {
      key: 'revenue_per_employee',
      label: '人均营业收入',
      unit: '万元/人',
      formula: '营业收入 ÷ 10000 ÷ 企业员工人数',
      inputs: ['income.revenue'],
      // enterprise_info carries one headcount, as of submission; applying it to earlier years would misstate them.
      note: '单位为万元/人。员工人数取 enterprise_info.employee_count（须为正整数，否则为空）；该人数为提交时点数据，仅用于最新年度，以前年度为空。',
      compute: (ctx, year) => {
        const employees = employeeCount(ctx);
        if (year !== ctx.latestYear || employees === null) return null;
        return ratio(toWan(income(ctx, year, 'revenue')), employees);
      },
    },
    {
      key: 'earnings_cash_coverage',
      label: '盈余现金保障倍数',
      unit: '倍',
      formula: '经营活动产生的现金流量净额 ÷ 净利润',
      inputs: ECC_INPUTS,
      note: '国资委绩效评价口径（教材口径，不含少数股东损益调整）。净利润为零、为负或缺失时为空；经营活动现金净额缺失时可由小计或明细行推算。',
      compute: operatingCashToProfit,
    },
    scoreMetric('total_asset_return'),
    scoreMetric('cost_expense_profit_margin'),
    scoreMetric('earnings_cash_coverage'),
    {
      key: 'overall_score',
      label: '投入产出综合评分',
      unit: '%',
      formula: '(总资产报酬率得分 + 成本费用利润率得分 + 盈余现金保障倍数得分) ÷ 参与计分的指标数',
      inputs: [...TAR_INPUTS, ...INCOME_COST_INPUTS, ...ECC_INPUTS],
      note: `等权平均，空值指标不参与；三项均为空时为空。人均营业收入无可比标准值，不计分。${SCORE_NOTE}`,
      compute: (ctx, year) => {
        const scores = (Object.keys(SCORED) as Scored[])
          .map((key) => score(key)(ctx, year))
          .filter((s) => s !== null);
        if (scores.length === 0) return null;
        return sum(scores)!.dividedBy(scores.length);
      },
    },
  ],
});
