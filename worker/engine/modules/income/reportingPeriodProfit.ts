/**
 * 利润分层分析: the profit layers of the income statement for a waterfall chart, in this order —
 * 营业收入 → 毛利润 (营业收入 − 营业成本) → 营业利润 → 利润总额 → 净利润 — each layer's margin on revenue, and the
 * three steps between the lower layers (营业利润 − 毛利润, 利润总额 − 营业利润, 净利润 − 利润总额), taken as the
 * differences of the reported subtotals so the waterfall always closes.
 */
import { pct, sub, toWan } from '../../decimal.ts';
import { defineIndicatorModule } from '../../indicator.ts';
import { profitabilityModule } from '../profitability.ts';
import { amountMetric, borrowMetric, type PeriodFormula, periodMetric } from './shared.ts';

const grossProfit: PeriodFormula = (p) => sub(p.income('revenue'), p.income('operating_cost'));

export const reportingPeriodProfitModule = defineIndicatorModule({
  slug: 'reporting_period_profit',
  label: '利润分层分析',
  section: 'enterprise_overview',
  description:
    '按“营业收入 → 毛利润 → 营业利润 → 利润总额 → 净利润”的顺序列示各层利润（万元）及其占营业收入的比率，' +
    '并给出相邻层级之间的调整额，供瀑布图使用。',
  metrics: [
    amountMetric('income.revenue', { key: 'operating_revenue', label: '营业收入' }),
    periodMetric(
      {
        key: 'gross_profit',
        label: '毛利润',
        unit: '万元',
        formula: '(营业收入 − 营业成本) ÷ 10000',
        inputs: ['income.revenue', 'income.operating_cost'],
      },
      (p) => toWan(grossProfit(p)),
    ),
    amountMetric('income.operating_profit', { label: '营业利润' }),
    amountMetric('income.total_profit', { label: '利润总额' }),
    amountMetric('income.net_profit', { label: '净利润' }),
    borrowMetric(profitabilityModule, 'gross_margin'),
    periodMetric(
      {
        key: 'operating_margin',
        label: '营业利润率',
        unit: '%',
        formula: '营业利润 ÷ 营业收入 × 100',
        inputs: ['income.operating_profit', 'income.revenue'],
      },
      (p) => pct(p.income('operating_profit'), p.income('revenue')),
    ),
    periodMetric(
      {
        key: 'total_profit_margin',
        label: '利润总额率',
        unit: '%',
        formula: '利润总额 ÷ 营业收入 × 100',
        inputs: ['income.total_profit', 'income.revenue'],
      },
      (p) => pct(p.income('total_profit'), p.income('revenue')),
    ),
    borrowMetric(profitabilityModule, 'net_margin'),
    periodMetric(
      {
        key: 'gross_to_operating_profit',
        label: '毛利润至营业利润调整额',
        unit: '万元',
        formula: '(营业利润 − 毛利润) ÷ 10000',
        inputs: ['income.operating_profit', 'income.revenue', 'income.operating_cost'],
        note: '税金及附加、期间费用与其他收益、投资收益、公允价值变动、减值损失、资产处置收益等的净影响。',
      },
      (p) => toWan(sub(p.income('operating_profit'), grossProfit(p))),
    ),
    periodMetric(
      {
        key: 'operating_to_total_profit',
        label: '营业利润至利润总额调整额',
        unit: '万元',
        formula: '(利润总额 − 营业利润) ÷ 10000',
        inputs: ['income.total_profit', 'income.operating_profit'],
        note: '即营业外收支净额。',
      },
      (p) => toWan(sub(p.income('total_profit'), p.income('operating_profit'))),
    ),
    periodMetric(
      {
        key: 'total_to_net_profit',
        label: '利润总额至净利润调整额',
        unit: '万元',
        formula: '(净利润 − 利润总额) ÷ 10000',
        inputs: ['income.net_profit', 'income.total_profit'],
        note: '即所得税费用的影响（通常为负）。',
      },
      (p) => toWan(sub(p.income('net_profit'), p.income('total_profit'))),
    ),
  ],
});
