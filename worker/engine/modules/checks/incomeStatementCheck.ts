/**
 * 利润表数据核对: each year's `last_year_amount` column against the previous submitted year's
 * `current_year_amount`, for every income line present in both (see adjacentColumns.ts for the rules).
 */
import type { AnalysisModule, RiskRuleDoc } from '../../module.ts';
import { adjacentColumnFields, checkAdjacentColumns } from './adjacentColumns.ts';
import { RESTATEMENT_TIERS } from './shared.ts';

/**
 * A restated comparative, graded by its share of the previous year's revenue (RESTATEMENT_TIERS); see
 * adjacentColumns.ts.
 */
export const INCOME_PRIOR_COLUMN_MISMATCH_RULE: RiskRuleDoc = {
  code: 'income_statement.prior_column_mismatch',
  tiers: RESTATEMENT_TIERS,
  description:
    '本年利润表某行“上年金额”与上年利润表“本年金额”不一致；（上年数重述）；差额绝对值低于上年营业收入的1%为提示，1%及以上为警告，5%及以上为危险（每股收益行为提示）；差额不足1元或折合不足0.005万元的不计。消息给出两个金额与可能原因；变动率按本年报表的上年金额（重述后基数）计算。',
  message:
    '{year}年利润表“{item}”上年金额为{last_year}{unit}，与{prior_year}年利润表本年金额{previous_current}{unit}不一致，差额{difference}{unit}{share}；可能原因：{cause}。变动率按重述后的上年金额计算。',
};

export const incomeStatementCheckModule: AnalysisModule = {
  slug: 'income_statement',
  label: '利润表数据核对',
  section: 'data_check',
  description: '核对本年利润表“上年金额”栏与上年利润表“本年金额”栏是否一致。',
  kind: 'check',
  fields: adjacentColumnFields('利润表', 'income'),
  riskRules: [INCOME_PRIOR_COLUMN_MISMATCH_RULE],
  compute: (ctx) =>
    checkAdjacentColumns(ctx, {
      sheet: 'income',
      rule: INCOME_PRIOR_COLUMN_MISMATCH_RULE,
      notSubmittedRule: null,
    }),
};
