/**
 * 投资活动现金流分析: investing inflow, outflow and net with their change rates, capital expenditure (cash paid for
 * fixed, intangible and other long-term assets) and capex against revenue — a depreciation-free proxy of
 * investment intensity, since the direct-method statement carries no depreciation.
 */
import { pct } from '../../decimal.ts';
import {
  cashFlowMissingItems,
  cashFlowMissingRule,
  cashLineMetric,
  defineIndicatorModuleWithRules,
  flowMetrics,
  INVESTING,
} from './shared.ts';

const SLUG = 'investing_activities';
const missingRule = cashFlowMissingRule(SLUG, '投资活动现金流指标');

export const investingActivitiesModule = defineIndicatorModuleWithRules(
  {
    slug: SLUG,
    label: '投资活动现金流分析',
    section: 'cash_flow_analysis',
    description: '投资活动现金流入、流出、净额及其增长率，资本性支出及其占营业收入的比重。',
    metrics: [
      ...flowMetrics(INVESTING),
      {
        ...cashLineMetric('asset_purchase', '购建固定资产、无形资产和其他长期资产支付的现金'),
        key: 'capex',
        label: '资本性支出',
      },
      {
        key: 'capex_to_revenue',
        label: '资本性支出占营业收入比重',
        unit: '%',
        formula: '购建固定资产、无形资产和其他长期资产支付的现金 ÷ 营业收入 × 100',
        inputs: ['cash_flow.asset_purchase', 'income.revenue'],
        note: '以营业收入为基数衡量投资强度（直接法现金流量表不含折旧摊销，无法计算资本性支出/折旧）；营业收入为零或缺失时为空。',
        compute: (ctx, year) =>
          pct(ctx.line(year, 'cash_flow', 'asset_purchase'), ctx.line(year, 'income', 'revenue')),
      },
    ],
  },
  [{ doc: missingRule, evaluate: (ctx) => cashFlowMissingItems(ctx, missingRule) }],
);
