/** The balance-sheet, cash-flow and equity modules, by report section, in presentation order. */
import type { AnalysisModule } from '../../module.ts';
import { businessInputProfitabilityModule } from './businessInputProfitability.ts';
import { currentLiabilitiesStructureModule } from './currentLiabilitiesStructure.ts';
import { detailedTotalAssetStructureModule } from './detailedTotalAssetStructure.ts';
import { financingActivitiesModule } from './financingActivities.ts';
import { investingActivitiesModule } from './investingActivities.ts';
import { liabilityStructureOverviewModule } from './liabilityStructureOverview.ts';
import { noncurrentLiabilitiesStructureModule } from './noncurrentLiabilitiesStructure.ts';
import { operatingActivitiesModule } from './operatingActivities.ts';
import { overviewTotalAssetStructureModule } from './overviewTotalAssetStructure.ts';
import { shareholderEquityModule } from './shareholderEquity.ts';
import { shareholderEquityChangeRateModule } from './shareholderEquityChangeRate.ts';
import { shareholderEquityStructureModule } from './shareholderEquityStructure.ts';
import { totalAssetsChangeRateModule } from './totalAssetsChangeRate.ts';
import { totalLiabilitiesChangeRateModule } from './totalLiabilitiesChangeRate.ts';

/** Section 3.2 (balance_sheet_analysis), in the spec's order. */
export const BALANCE_MODULES: readonly AnalysisModule[] = [
  overviewTotalAssetStructureModule,
  detailedTotalAssetStructureModule,
  totalAssetsChangeRateModule,
  totalLiabilitiesChangeRateModule,
  liabilityStructureOverviewModule,
  currentLiabilitiesStructureModule,
  noncurrentLiabilitiesStructureModule,
  shareholderEquityChangeRateModule,
  shareholderEquityStructureModule,
];

/** Section 3.3 (cash_flow_analysis), in the spec's order. */
export const CASH_FLOW_MODULES: readonly AnalysisModule[] = [
  operatingActivitiesModule,
  investingActivitiesModule,
  financingActivitiesModule,
];

/** Section 4 (comprehensive_analysis): only this area's two; they follow long_term_liability in the spec's order. */
export const COMPREHENSIVE_MODULES: readonly AnalysisModule[] = [
  shareholderEquityModule,
  businessInputProfitabilityModule,
];
