/**
 * 经营业绩概览: the multi-period trend of total profit, net cash flow, investment income and operating profit,
 * each with its year-on-year change rate. Net cash flow is the cash-flow statement's 现金及现金等价物净增加额
 * and is null for a year without that statement.
 */
import { defineIndicatorModule } from '../../indicator.ts';
import { amountAndChange } from './shared.ts';

export const financialPerformanceOverviewModule = defineIndicatorModule({
  slug: 'financial_performance_overview',
  label: '经营业绩概览',
  section: 'enterprise_overview',
  description: '利润总额、现金净流量（现金及现金等价物净增加额）、投资收益、营业利润的多期趋势及同比变动率。',
  metrics: [
    ...amountAndChange('income.total_profit', { label: '利润总额' }),
    ...amountAndChange('cash_flow.net_increase_cash', {
      label: '现金净流量',
      note: '取现金流量表“现金及现金等价物净增加额”；未提交现金流量表的年度为空。',
    }),
    ...amountAndChange('income.investment_income', { label: '投资收益' }),
    ...amountAndChange('income.operating_profit', { label: '营业利润' }),
  ],
});
