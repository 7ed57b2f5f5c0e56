/**
 * The modules of this folder, in presentation order, for the registry:
 * - CHECK_MODULES: section data_check (数据核对), to follow balance_sheet;
 * - SIGNAL_MODULES: section comprehensive_analysis (综合经营分析).
 */
import type { AnalysisModule } from '../../module.ts';
import { cashFlowCheckModule } from './cashFlowCheck.ts';
import { comparativeCheckModule } from './comparativeCheck.ts';
import { distressSignalsModule } from './distressSignals.ts';
import { incomeStatementCheckModule } from './incomeStatementCheck.ts';
import { statementArithmeticModule } from './statementArithmetic.ts';

export const CHECK_MODULES: readonly AnalysisModule[] = [
  incomeStatementCheckModule,
  cashFlowCheckModule,
  comparativeCheckModule,
  statementArithmeticModule,
];

export const SIGNAL_MODULES: readonly AnalysisModule[] = [distressSignalsModule];
