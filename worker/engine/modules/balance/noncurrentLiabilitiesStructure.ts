/**
 * 非流动负债结构: each non-current liability line's share of total non-current liabilities at each year end.
 * Many smaller enterprises have no non-current liabilities: a zero total gives null shares, not an error.
 */
import { catalogueKeys, defineLineStructureModule } from './shared.ts';

export const noncurrentLiabilitiesStructureModule = defineLineStructureModule({
  slug: 'noncurrent_liabilities_structure',
  label: '非流动负债结构',
  description:
    '各年末每个非流动负债项目的金额及占非流动负债合计的比重；明细合计与非流动负债合计的差额列为“其他非流动负债项目（差额）”，占比合计为100；非流动负债合计为零时占比为空。',
  lines: catalogueKeys('balance', ['noncurrent_liabilities']),
  base: { key: 'total_noncurrent_liabilities', label: '非流动负债合计' },
  // Not `other_non_current_liabilities`: that is a statement line of its own (其他非流动负债).
  remainder: { key: 'other_noncurrent_liability_items', label: '其他非流动负债项目（差额）' },
});
