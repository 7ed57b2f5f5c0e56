/**
 * 筹资活动现金流分析: financing inflow, outflow and net with their change rates, borrowings received against debt
 * repaid, and whether financing is covering an operating cash shortfall.
 */
import type { RiskItem } from '../../../types.ts';
import type { ReportContext } from '../../context.ts';
import { sub, toWan } from '../../decimal.ts';
import type { RiskRuleDoc } from '../../module.ts';
import {
  type CustomRiskRule,
  cashFlowMissingItems,
  cashFlowMissingRule,
  cashLineMetric,
  defineIndicatorModuleWithRules,
  FINANCING,
  flowMetrics,
  flowsOf,
  OPERATING,
  riskItem,
  sectionInputs,
  wanText,
} from './shared.ts';

const SLUG = 'financing_activities';

export const FINANCING_FUNDS_OPERATIONS_RULE: RiskRuleDoc = {
  code: `${SLUG}.financing_funds_operations`,
  tiers: [{ level: 'warning', threshold: 0 }],
  description: '筹资活动现金流量净额为正（净流入）而经营活动现金流量净额为负，经营资金依赖外部筹资。',
  message:
    '{year}年筹资活动产生的现金流量净额为{financing}（净流入），而经营活动产生的现金流量净额为{operating}（净流出），经营活动资金缺口依赖外部筹资弥补，需关注融资可持续性。',
};

const financingFundsOperations: CustomRiskRule = {
  doc: FINANCING_FUNDS_OPERATIONS_RULE,
  evaluate(ctx: ReportContext): RiskItem[] {
    const year = ctx.latestYear;
    const financing = flowsOf(ctx, year, FINANCING).net;
    const operating = flowsOf(ctx, year, OPERATING).net;
    if (financing === null || operating === null || !financing.greaterThan(0) || !operating.isNegative()) {
      return [];
    }
    return [
      riskItem(FINANCING_FUNDS_OPERATIONS_RULE, 'warning', {
        year: String(year),
        financing: wanText(financing),
        operating: wanText(operating),
      }),
    ];
  },
};

const missingRule = cashFlowMissingRule(SLUG, '筹资活动现金流指标');

export const financingActivitiesModule = defineIndicatorModuleWithRules(
  {
    slug: SLUG,
    label: '筹资活动现金流分析',
    section: 'cash_flow_analysis',
    description:
      '筹资活动现金流入、流出、净额及其增长率，取得借款与偿还债务的对比，以及与经营活动现金净额的对照。',
    metrics: [
      ...flowMetrics(FINANCING),
      cashLineMetric('borrowings_received', '取得借款收到的现金'),
      cashLineMetric('debt_repayment', '偿还债务支付的现金'),
      {
        key: 'net_borrowing',
        label: '借款净流入',
        unit: '万元',
        formula: '(取得借款收到的现金 − 偿还债务支付的现金) ÷ 10000',
        inputs: ['cash_flow.borrowings_received', 'cash_flow.debt_repayment'],
        note: '为负表示本年净偿还债务；任一行缺失时为空。',
        compute: (ctx, year) =>
          toWan(
            sub(
              ctx.line(year, 'cash_flow', 'borrowings_received'),
              ctx.line(year, 'cash_flow', 'debt_repayment'),
            ),
          ),
      },
      {
        key: 'net_operating_cash_flow',
        label: '经营活动产生的现金流量净额',
        unit: '万元',
        formula: '经营活动产生的现金流量净额 ÷ 10000',
        inputs: sectionInputs(OPERATING, 'net'),
        note: '与筹资活动净额对照。净额行缺失时为经营活动现金流入小计 − 流出小计（小计可由明细行合计）。',
        compute: (ctx, year) => toWan(flowsOf(ctx, year, OPERATING).net),
      },
    ],
  },
  [{ doc: missingRule, evaluate: (ctx) => cashFlowMissingItems(ctx, missingRule) }, financingFundsOperations],
);
