/**
 * The enterprise-overview (section 2) and income-statement (section 3.1) modules, each array in the spec's
 * presentation order. INCOME_MODULES omits `revenue`, which already exists in `modules/revenue.ts` and comes
 * first in section 3.1. `eps_fluctuations` belongs to section 4 (综合经营分析), where the spec lists it between
 * operational_efficiency and short_term_liability, so it is exported on its own.
 */
import type { AnalysisModule } from '../../module.ts';
import { costModule } from './cost.ts';
import { enterpriseProfileModule } from './enterpriseProfile.ts';
import { epsFluctuationsModule } from './epsFluctuations.ts';
import { expenseModule } from './expense.ts';
import { financialBenchmarksModule } from './financialBenchmarks.ts';
import { financialPerformanceOverviewModule } from './financialPerformanceOverview.ts';
import { grossProfitModule } from './grossProfit.ts';
import { growthQualityAnalysisModule } from './growthQualityAnalysis.ts';
import { keyIncomeItemsModule } from './keyIncomeItems.ts';
import { netProfitModule } from './netProfit.ts';
import { nonOperatingIncomeAnalysisModule } from './nonOperatingIncomeAnalysis.ts';
import { operatingProfitModule } from './operatingProfit.ts';
import { otherComprehensiveIncomeModule } from './otherComprehensiveIncome.ts';
import { reportingPeriodBalanceSheetModule } from './reportingPeriodBalanceSheet.ts';
import { reportingPeriodExpenseModule } from './reportingPeriodExpense.ts';
import { reportingPeriodProfitModule } from './reportingPeriodProfit.ts';
import { revenueCostAlignmentModule } from './revenueCostAlignment.ts';

export { epsFluctuationsModule };

export const OVERVIEW_MODULES: readonly AnalysisModule[] = [
  enterpriseProfileModule,
  financialBenchmarksModule,
  financialPerformanceOverviewModule,
  reportingPeriodProfitModule,
  reportingPeriodExpenseModule,
  reportingPeriodBalanceSheetModule,
];

export const INCOME_MODULES: readonly AnalysisModule[] = [
  costModule,
  revenueCostAlignmentModule,
  expenseModule,
  keyIncomeItemsModule,
  operatingProfitModule,
  nonOperatingIncomeAnalysisModule,
  netProfitModule,
  growthQualityAnalysisModule,
  otherComprehensiveIncomeModule,
  grossProfitModule,
];
