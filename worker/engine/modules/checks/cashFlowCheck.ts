/**
 * 现金流量表数据核对: each year's `last_year_amount` column against the previous submitted year's
 * `current_year_amount`, for every cash-flow line present in both (see adjacentColumns.ts for the rules).
 * The cash flow statement is optional: without any, sp_result holds nulls and one info item says so.
 */
import type { AnalysisModule, RiskRuleDoc } from '../../module.ts';
import { adjacentColumnFields, checkAdjacentColumns } from './adjacentColumns.ts';
import { RESTATEMENT_TIERS } from './shared.ts';

/** Graded like income_statement: danger when |difference| ≥ 1% of the previous year's revenue. */
export const CASH_FLOW_PRIOR_COLUMN_MISMATCH_RULE: RiskRuleDoc = {
  code: 'cash_flow.prior_column_mismatch',
  tiers: RESTATEMENT_TIERS,
  description:
    '本年现金流量表某行“上年金额”与上年现金流量表“本年金额”不一致；（上年数重述）；差额绝对值低于上年营业收入的1%为提示，1%及以上为警告，5%及以上为危险（每股收益行为提示）；差额不足1元或折合不足0.005万元的不计。消息给出两个金额与可能原因；变动率按本年报表的上年金额（重述后基数）计算。',
  message:
    '{year}年现金流量表“{item}”上年金额为{last_year}{unit}，与{prior_year}年现金流量表本年金额{previous_current}{unit}不一致，差额{difference}{unit}{share}；可能原因：{cause}。变动率按重述后的上年金额计算。',
};

export const CASH_FLOW_NOT_SUBMITTED_RULE: RiskRuleDoc = {
  code: 'cash_flow.not_submitted',
  tiers: [{ level: 'info', threshold: 0 }],
  description: '所有年度均未提交现金流量表，无法核对相邻年度现金流量数据。',
  message: '未提交现金流量表，无法核对相邻年度现金流量数据的一致性。',
  role: 'data_gap',
  gap: 'cash_flow_statement',
};

export const cashFlowCheckModule: AnalysisModule = {
  slug: 'cash_flow',
  label: '现金流量表数据核对',
  section: 'data_check',
  description: '核对相邻年度现金流量表：本年“上年金额”栏与上年“本年金额”栏是否一致。',
  kind: 'check',
  fields: adjacentColumnFields('现金流量表', 'cash_flow'),
  riskRules: [CASH_FLOW_PRIOR_COLUMN_MISMATCH_RULE, CASH_FLOW_NOT_SUBMITTED_RULE],
  compute: (ctx) =>
    checkAdjacentColumns(ctx, {
      sheet: 'cash_flow',
      rule: CASH_FLOW_PRIOR_COLUMN_MISMATCH_RULE,
      notSubmittedRule: CASH_FLOW_NOT_SUBMITTED_RULE,
    }),
};
