/**
 * 收入成本匹配分析 — "the difference between revenue and cost weights and its change", made precise three ways:
 * - weights: 营业收入占比 (revenue ÷ (revenue + non-operating income), as the revenue module) minus 营业成本占比
 *   (operating cost ÷ (operating cost + non-operating expenses), as the cost module), and its change in points;
 * - growth: 营业收入变动率 − 营业成本变动率 (positive: revenue outgrows cost);
 * - matching: 营业成本率 = operating cost ÷ revenue and its change, with the gross margin (100 − 营业成本率) and its
 *   change. The gross margin is the profitability module's own metric.
 */
import { pct, sub } from '../../decimal.ts';
import { formatValue } from '../../indicator.ts';
import { profitabilityModule } from '../profitability.ts';
import { operatingRevenueShareOf } from '../revenue.ts';
import { operatingCostShareOf } from './cost.ts';
import {
  borrowMetric,
  type CustomRiskRule,
  currentPeriod,
  defineModule,
  findTier,
  grossMarginOf,
  lineChangeRateMetric,
  type PeriodFormula,
  periodMetric,
  ppChangeMetric,
  priorPeriod,
  raise,
} from './shared.ts';

/** 营业收入 ÷ (营业收入 + 营业外收入) × 100: the revenue module's operating_revenue_ratio. */
const revenueWeightOf: PeriodFormula = operatingRevenueShareOf;

const weightDifferenceOf: PeriodFormula = (p) => sub(p.value(revenueWeightOf), p.value(operatingCostShareOf));

const costToRevenueOf: PeriodFormula = (p) => pct(p.income('operating_cost'), p.income('revenue'));

const WEIGHT_INPUTS = [
  'income.revenue',
  'income.non_operating_income',
  'income.operating_cost',
  'income.non_operating_expenses',
] as const;

const GROSS_MARGIN_FALL: CustomRiskRule = {
  code: 'revenue_cost_alignment.gross_margin_fall',
  tiers: [{ level: 'warning', threshold: 5 }],
  description: '毛利率较上年下降超过5个百分点。',
  message:
    '{year}年毛利率为{value}，较{prior_year}年的{prior_value}下降{fall}，降幅超过{threshold}个百分点，收入与成本的匹配关系恶化。',
  evaluate(ctx) {
    const year = ctx.latestYear;
    const current = currentPeriod(ctx, year).value(grossMarginOf);
    const prior = priorPeriod(ctx, year).value(grossMarginOf);
    const fall = sub(prior, current);
    if (current === null || prior === null || fall === null) return [];
    const tier = findTier(GROSS_MARGIN_FALL.tiers, (t) => fall.greaterThan(t));
    if (!tier) return [];
    return [
      raise(GROSS_MARGIN_FALL, tier.level, {
        year: String(year),
        value: formatValue(current, '%'),
        prior_year: String(year - 1),
        prior_value: formatValue(prior, '%'),
        fall: formatValue(fall, '个百分点'),
        threshold: String(tier.threshold),
      }),
    ];
  },
};

export const revenueCostAlignmentModule = defineModule({
  slug: 'revenue_cost_alignment',
  label: '收入成本匹配分析',
  section: 'income_statement_analysis',
  description:
    '营业收入占比与营业成本占比之差及其变动、收入与成本增速之差、营业成本率与毛利率及其变动，衡量收入与成本的匹配程度。',
  metrics: [
    periodMetric(
      {
        key: 'revenue_weight',
        label: '营业收入占比',
        unit: '%',
        formula: '营业收入 ÷ (营业收入 + 营业外收入) × 100',
        inputs: ['income.revenue', 'income.non_operating_income'],
        note: '与营业收入分析的营业收入占比相同。',
      },
      revenueWeightOf,
    ),
    periodMetric(
      {
        key: 'cost_weight',
        label: '营业成本占比',
        unit: '%',
        formula: '营业成本 ÷ (营业成本 + 营业外支出) × 100',
        inputs: ['income.operating_cost', 'income.non_operating_expenses'],
        note: '与营业成本分析的营业成本占比相同。',
      },
      operatingCostShareOf,
    ),
    periodMetric(
      {
        key: 'weight_difference',
        label: '收入成本占比差',
        unit: '个百分点',
        formula: '营业收入占比 − 营业成本占比',
        inputs: WEIGHT_INPUTS,
      },
      weightDifferenceOf,
    ),
    ppChangeMetric(
      {
        key: 'weight_difference_change',
        label: '收入成本占比差变动',
        unit: '个百分点',
        formula: '本期收入成本占比差 − 上期收入成本占比差',
        inputs: WEIGHT_INPUTS,
      },
      weightDifferenceOf,
    ),
    lineChangeRateMetric('income.revenue', { label: '营业收入' }),
    lineChangeRateMetric('income.operating_cost', { label: '营业成本' }),
    {
      key: 'growth_difference',
      label: '收入成本增速差',
      unit: '个百分点',
      formula: '营业收入变动率 − 营业成本变动率',
      inputs: ['income.revenue', 'income.operating_cost'],
      note: '为正表示收入增长快于成本。任一变动率为空时为空。',
      compute: (ctx, year) =>
        sub(
          ctx.lineChangeRate(year, 'income', 'revenue'),
          ctx.lineChangeRate(year, 'income', 'operating_cost'),
        ),
    },
    periodMetric(
      {
        key: 'cost_to_revenue_ratio',
        label: '营业成本率',
        unit: '%',
        formula: '营业成本 ÷ 营业收入 × 100',
        inputs: ['income.operating_cost', 'income.revenue'],
      },
      costToRevenueOf,
    ),
    ppChangeMetric(
      {
        key: 'cost_to_revenue_ratio_change',
        label: '营业成本率变动',
        unit: '个百分点',
        formula: '本期营业成本率 − 上期营业成本率',
        inputs: ['income.operating_cost', 'income.revenue'],
      },
      costToRevenueOf,
    ),
    borrowMetric(profitabilityModule, 'gross_margin'),
    ppChangeMetric(
      {
        key: 'gross_margin_change',
        label: '毛利率变动',
        unit: '个百分点',
        formula: '本期毛利率 − 上期毛利率',
        inputs: ['income.revenue', 'income.operating_cost'],
      },
      grossMarginOf,
    ),
  ],
  customRules: [GROSS_MARGIN_FALL],
});
