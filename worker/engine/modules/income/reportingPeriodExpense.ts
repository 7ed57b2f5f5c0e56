/**
 * 期间费用结构: the four period expenses, their total, each one's share of the total (the shares of the lines
 * present add up to 100) and the period-expense ratio on revenue.
 */
import { pct } from '../../decimal.ts';
import { defineIndicatorModule } from '../../indicator.ts';
import type { MetricDef } from '../../module.ts';
import {
  amountMetric,
  PERIOD_EXPENSE_INPUTS,
  PERIOD_EXPENSES,
  periodExpenseRatioMetric,
  periodMetric,
  totalPeriodExpensesMetric,
  totalPeriodExpensesOf,
} from './shared.ts';

/**
 * A share needs a positive total: when net interest income (negative 财务费用) outweighs the other expenses the
 * total is ≤ 0 and shares of it have no meaning.
 */
const SHARE_NOTE =
  '以期间费用合计为基数，各项占比之和为100；某项费用行缺失时其占比为空。期间费用合计小于或等于零时为空。';

const shareMetric = (expense: (typeof PERIOD_EXPENSES)[number]): MetricDef =>
  periodMetric(
    {
      key: `${expense.key}_share`,
      label: `${expense.label}占比`,
      unit: '%',
      formula: `${expense.label} ÷ 期间费用合计 × 100`,
      inputs: PERIOD_EXPENSE_INPUTS,
      note: SHARE_NOTE,
    },
    (p) => {
      const total = p.value(totalPeriodExpensesOf);
      return total?.greaterThan(0) ? pct(p.income(expense.key), total) : null;
    },
  );

export const reportingPeriodExpenseModule = defineIndicatorModule({
  slug: 'reporting_period_expense',
  label: '期间费用结构',
  section: 'enterprise_overview',
  description: '销售费用、管理费用、研发费用、财务费用的金额、占期间费用合计的比重，以及期间费用率。',
  metrics: [
    ...PERIOD_EXPENSES.map((e) => amountMetric(`income.${e.key}`, { label: e.label })),
    totalPeriodExpensesMetric,
    ...PERIOD_EXPENSES.map(shareMetric),
    periodExpenseRatioMetric,
  ],
});
