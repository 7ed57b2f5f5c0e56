/**
 * 利润表数据核对: each year's `last_year_amount` column against the previous submitted year's
 * `current_year_amount`, for every income line present in both (see adjacentColumns.ts for the rules).
 */
import type { AnalysisModule, RiskRuleDoc } from '../../module.ts';
import { adjacentColumnFields, checkAdjacentColumns } from './adjacentColumns.ts';
import { MATERIALITY_TIERS } from './shared.ts';

/**
 * A mismatch is a danger when |difference| ≥ 1% of the previous year's revenue (the statement the comparative
 * figures should have been carried from), otherwise a warning; without a positive revenue figure, and for the
 * per-share lines, it stays a warning.
 */
export const INCOME_PRIOR_COLUMN_MISMATCH_RULE: RiskRuleDoc = {
  code: 'income_statement.prior_column_mismatch',
  tiers: MATERIALITY_TIERS,
  description:
    '本年利润表某行“上年金额”与上年利润表“本年金额”不一致；差额绝对值达到上年营业收入的1%及以上为危险，其余为警告。',
  message:
    '{year}年利润表“{item}”上年金额为{last_year}{unit}，与{prior_year}年利润表本年金额{previous_current}{unit}不一致，差额{difference}{unit}{share}。',
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
