/**
 * 期间费用变动分析: year-on-year change of the four period expenses and of their total, against revenue growth,
 * and the change of the period-expense ratio. An expense that grows fast while revenue does not is a risk.
 */

import type { RiskItem } from '../../../types.ts';
import { formatValue } from '../../indicator.ts';
import { isMaterialLine, materialityNote } from '../../materiality.ts';
import {
  amountMetric,
  type CustomRiskRule,
  changeRateMetric,
  defineModule,
  lineChangeRateMetric,
  PERIOD_EXPENSE_INPUTS,
  PERIOD_EXPENSES,
  periodExpenseRatioMetric,
  periodExpenseRatioOf,
  ppChangeMetric,
  raise,
  totalPeriodExpensesMetric,
  totalPeriodExpensesOf,
} from './shared.ts';

const EXPENSE_GROWTH_THRESHOLD = 30;
const REVENUE_GROWTH_THRESHOLD = 10;

const EXPENSE_OUTGROWS_REVENUE: CustomRiskRule = {
  code: 'expense.growth_outpaces_revenue',
  tiers: [{ level: 'warning', threshold: EXPENSE_GROWTH_THRESHOLD }],
  description: `某项期间费用同比增长超过${EXPENSE_GROWTH_THRESHOLD}%，而营业收入增长低于${REVENUE_GROWTH_THRESHOLD}%（每项费用分别判断${materialityNote('income')}）。`,
  message:
    '{year}年{item}同比增长{growth}，超过{threshold}%，而营业收入变动率仅为{revenue_growth}（低于{revenue_threshold}%），费用增长与收入增长不匹配，需关注费用管控。',
  evaluate(ctx) {
    const year = ctx.latestYear;
    const revenueGrowth = ctx.lineChangeRate(year, 'income', 'revenue');
    if (revenueGrowth === null || !revenueGrowth.lessThan(REVENUE_GROWTH_THRESHOLD)) return [];
    const items: RiskItem[] = [];
    for (const expense of PERIOD_EXPENSES) {
      const growth = ctx.lineChangeRate(year, 'income', expense.key);
      if (growth === null || !growth.greaterThan(EXPENSE_GROWTH_THRESHOLD)) continue;
      if (!isMaterialLine(ctx, year, 'income', expense.key)) continue;
      items.push(
        raise(EXPENSE_OUTGROWS_REVENUE, 'warning', {
          year: String(year),
          item: expense.label,
          growth: formatValue(growth, '%'),
          threshold: String(EXPENSE_GROWTH_THRESHOLD),
          revenue_growth: formatValue(revenueGrowth, '%'),
          revenue_threshold: String(REVENUE_GROWTH_THRESHOLD),
        }),
      );
    }
    return items;
  },
};

export const expenseModule = defineModule({
  slug: 'expense',
  label: '期间费用变动分析',
  section: 'income_statement_analysis',
  description:
    '销售费用、管理费用、研发费用、财务费用及期间费用合计的同比变动率，与营业收入变动率及期间费用率变动对照。',
  metrics: [
    ...PERIOD_EXPENSES.map((e) => amountMetric(`income.${e.key}`, { label: e.label })),
    totalPeriodExpensesMetric,
    ...PERIOD_EXPENSES.map((e) => lineChangeRateMetric(`income.${e.key}`, { label: e.label })),
    changeRateMetric(
      {
        key: 'total_period_expenses_change_rate',
        label: '期间费用合计变动率',
        unit: '%',
        formula: '(本期期间费用合计 − 上期期间费用合计) ÷ |上期期间费用合计| × 100',
        inputs: PERIOD_EXPENSE_INPUTS,
      },
      totalPeriodExpensesOf,
    ),
    lineChangeRateMetric('income.revenue', { label: '营业收入' }),
    periodExpenseRatioMetric,
    ppChangeMetric(
      {
        key: 'period_expense_ratio_change',
        label: '期间费用率变动',
        unit: '个百分点',
        formula: '本期期间费用率 − 上期期间费用率',
        inputs: [...PERIOD_EXPENSE_INPUTS, 'income.revenue'],
      },
      periodExpenseRatioOf,
    ),
  ],
  customRules: [EXPENSE_OUTGROWS_REVENUE],
});
