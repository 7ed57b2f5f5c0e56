/**
 * 营业成本分析: operating cost and non-operating expenses, their shares of the two together (the counterpart of the
 * revenue module's operating vs non-operating revenue), their change rates, and how much faster cost grew than
 * revenue.
 */
import { add, pct, sub } from '../../decimal.ts';
import { defineIndicatorModule } from '../../indicator.ts';
import {
  amountMetric,
  lineChangeRateMetric,
  type PeriodFormula,
  periodMetric,
  ppChangeMetric,
} from './shared.ts';

/** 营业成本 ÷ (营业成本 + 营业外支出) × 100; null when either line is missing (no zero-filling, as in revenue). */
export const operatingCostShareOf: PeriodFormula = (p) => {
  const cost = p.income('operating_cost');
  return pct(cost, add(cost, p.income('non_operating_expenses')));
};

const nonOperatingExpenseShareOf: PeriodFormula = (p) => {
  const expenses = p.income('non_operating_expenses');
  return pct(expenses, add(p.income('operating_cost'), expenses));
};

export const costModule = defineIndicatorModule({
  slug: 'cost',
  label: '营业成本分析',
  section: 'income_statement_analysis',
  description: '营业成本与营业外支出的金额、占两者合计的比重及其变动，并比较营业成本与营业收入的增速。',
  metrics: [
    amountMetric('income.operating_cost', { label: '营业成本' }),
    amountMetric('income.non_operating_expenses', { label: '营业外支出' }),
    periodMetric(
      {
        key: 'operating_cost_share',
        label: '营业成本占比',
        unit: '%',
        formula: '营业成本 ÷ (营业成本 + 营业外支出) × 100',
        inputs: ['income.operating_cost', 'income.non_operating_expenses'],
        note: '任一行缺失或分母为零时为空（缺失的营业外支出不按零处理）。',
      },
      operatingCostShareOf,
    ),
    periodMetric(
      {
        key: 'non_operating_expenses_share',
        label: '营业外支出占比',
        unit: '%',
        formula: '营业外支出 ÷ (营业成本 + 营业外支出) × 100',
        inputs: ['income.operating_cost', 'income.non_operating_expenses'],
        note: '与营业成本占比之和为100。',
      },
      nonOperatingExpenseShareOf,
    ),
    ppChangeMetric(
      {
        key: 'operating_cost_share_change',
        label: '营业成本占比变动',
        unit: '个百分点',
        formula: '本期营业成本占比 − 上期营业成本占比',
        inputs: ['income.operating_cost', 'income.non_operating_expenses'],
      },
      operatingCostShareOf,
    ),
    lineChangeRateMetric('income.operating_cost', { label: '营业成本' }),
    lineChangeRateMetric('income.non_operating_expenses', { label: '营业外支出' }),
    lineChangeRateMetric('income.revenue', { label: '营业收入' }),
    {
      key: 'cost_revenue_growth_gap',
      label: '成本增速超出收入增速',
      unit: '个百分点',
      formula: '营业成本变动率 − 营业收入变动率',
      inputs: ['income.operating_cost', 'income.revenue'],
      note: '为正表示成本增长快于收入（或下降慢于收入）。任一变动率为空时为空。',
      compute: (ctx, year) =>
        sub(
          ctx.lineChangeRate(year, 'income', 'operating_cost'),
          ctx.lineChangeRate(year, 'income', 'revenue'),
        ),
    },
  ],
  riskRules: [
    {
      code: 'cost.cost_growth_outpaces_revenue',
      metric: 'cost_revenue_growth_gap',
      kind: 'above',
      tiers: [{ level: 'warning', threshold: 10 }],
      description: '营业成本变动率高于营业收入变动率超过10个百分点。',
      message:
        '{year}年营业成本变动率比营业收入变动率高{value}，超过{threshold}，成本增长明显快于收入，毛利空间受到挤压。',
    },
  ],
});
