/**
 * 核心财务指标: scale (assets, liabilities, equity, revenue, net profit) and the headline ratios. The ratios are
 * the profitability and long-term-liability modules' own metrics, borrowed as they stand, so the overview can
 * never show a different gross margin or ROE from the detailed analysis.
 */
import { defineIndicatorModule } from '../../indicator.ts';
import { longTermLiabilityModule } from '../longTermLiability.ts';
import { profitabilityModule } from '../profitability.ts';
import { amountMetric, borrowMetric } from './shared.ts';

export const financialBenchmarksModule = defineIndicatorModule({
  slug: 'financial_benchmarks',
  label: '核心财务指标',
  section: 'enterprise_overview',
  description:
    '资产总计、负债合计、所有者权益合计、营业收入、净利润（年末余额或本年金额），以及毛利率、净利率、净资产收益率与资产负债率。',
  metrics: [
    amountMetric('balance.total_assets', { label: '资产总计' }),
    amountMetric('balance.total_liabilities', { label: '负债合计' }),
    amountMetric('balance.total_shareholders_equity', { label: '所有者权益合计' }),
    amountMetric('income.revenue', { key: 'operating_revenue', label: '营业收入' }),
    amountMetric('income.net_profit', { label: '净利润' }),
    borrowMetric(profitabilityModule, 'gross_margin'),
    borrowMetric(profitabilityModule, 'net_margin'),
    borrowMetric(profitabilityModule, 'roe'),
    borrowMetric(profitabilityModule, 'roe_parent'),
    borrowMetric(profitabilityModule, 'roa_parent'),
    borrowMetric(longTermLiabilityModule, 'debt_to_asset_ratio'),
  ],
});
