/**
 * 关键利润项目变动: gross profit, the four period expenses, income tax, operating profit and net profit — amounts
 * and year-on-year change rates, side by side.
 */
import { sub, toWan } from '../../decimal.ts';
import { defineIndicatorModule } from '../../indicator.ts';
import {
  amountAndChange,
  changeRateMetric,
  PERIOD_EXPENSES,
  type PeriodFormula,
  periodMetric,
} from './shared.ts';

const grossProfitOf: PeriodFormula = (p) => sub(p.income('revenue'), p.income('operating_cost'));

export const keyIncomeItemsModule = defineIndicatorModule({
  slug: 'key_income_items',
  label: '关键利润项目变动',
  section: 'income_statement_analysis',
  description:
    '毛利润、销售费用、管理费用、研发费用、财务费用、所得税费用、营业利润与净利润的金额及同比变动率。',
  metrics: [
    periodMetric(
      {
        key: 'gross_profit',
        label: '毛利润',
        unit: '万元',
        formula: '(营业收入 − 营业成本) ÷ 10000',
        inputs: ['income.revenue', 'income.operating_cost'],
      },
      (p) => toWan(grossProfitOf(p)),
    ),
    changeRateMetric(
      {
        key: 'gross_profit_change_rate',
        label: '毛利润变动率',
        unit: '%',
        formula: '(本期毛利润 − 上期毛利润) ÷ |上期毛利润| × 100',
        inputs: ['income.revenue', 'income.operating_cost'],
      },
      grossProfitOf,
    ),
    ...PERIOD_EXPENSES.flatMap((e) => amountAndChange(`income.${e.key}`, { label: e.label })),
    ...amountAndChange('income.income_tax_expense', { label: '所得税费用' }),
    ...amountAndChange('income.operating_profit', { label: '营业利润' }),
    ...amountAndChange('income.net_profit', { label: '净利润' }),
  ],
});
