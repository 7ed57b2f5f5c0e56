/** 营业收入分析: operating vs non-operating revenue and the change of the operating share. */
import type { ReportContext } from '../context.ts';
import { add, pct, ppChange, toWan } from '../decimal.ts';
import { defineIndicatorModule } from '../indicator.ts';
import { currentPeriod, type PeriodFormula, priorPeriod } from './income/shared.ts';

/** revenue / (revenue + non-operating income) × 100 of one period (memoised per period, see `Period.value`). */
export const operatingRevenueShareOf: PeriodFormula = (p) => {
  const revenue = p.income('revenue');
  return pct(revenue, add(revenue, p.income('non_operating_income')));
};

const currentShare = (ctx: ReportContext, year: number) =>
  currentPeriod(ctx, year).value(operatingRevenueShareOf);

export const revenueModule = defineIndicatorModule({
  slug: 'revenue',
  label: '营业收入分析',
  section: 'income_statement_analysis',
  description: '营业收入与营业外收入的占比及其变动趋势。',
  metrics: [
    {
      key: 'operating_revenue',
      label: '营业收入',
      unit: '万元',
      formula: '营业收入 ÷ 10000',
      inputs: ['income.revenue'],
      compute: (ctx, year) => toWan(ctx.line(year, 'income', 'revenue')),
    },
    {
      key: 'non_operating_revenue',
      label: '营业外收入',
      unit: '万元',
      formula: '营业外收入 ÷ 10000',
      inputs: ['income.non_operating_income'],
      compute: (ctx, year) => toWan(ctx.line(year, 'income', 'non_operating_income')),
    },
    {
      key: 'operating_revenue_ratio',
      label: '营业收入占比',
      unit: '%',
      formula: '营业收入 ÷ (营业收入 + 营业外收入) × 100',
      inputs: ['income.revenue', 'income.non_operating_income'],
      note: '任一行缺失或分母为零时为空（缺失的营业外收入不按零处理）。',
      compute: currentShare,
    },
    {
      key: 'operating_revenue_ratio_change',
      label: '营业收入占比变动',
      unit: '个百分点',
      formula: '本年营业收入占比 − 上年营业收入占比',
      inputs: ['income.revenue', 'income.non_operating_income'],
      // The prior share uses this year's comparatives (restated where a retrospective adjustment was made).
      note: '上年数取本年利润表的上年金额（重述后的比较数据，CAS 28）；未列示时取上一提交年度利润表的本年金额。',
      compute: (ctx, year) =>
        ppChange(currentShare(ctx, year), priorPeriod(ctx, year).value(operatingRevenueShareOf)),
    },
  ],
  riskRules: [
    {
      code: 'revenue.operating_revenue_decline',
      metric: 'operating_revenue',
      kind: 'decline',
      tiers: [{ level: 'warning', threshold: 20 }],
      description: '营业收入较上年下降超过20%。',
      message:
        '{year}年营业收入为{value}，较{prior_year}年的{prior_value}下降{decline}，降幅超过{threshold}，需关注业务收缩风险。',
    },
  ],
});
