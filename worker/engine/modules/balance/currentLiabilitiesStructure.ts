/** 流动负债结构: each current liability line's share of total current liabilities at each year end. */
import { catalogueKeys, defineLineStructureModule } from './shared.ts';

export const currentLiabilitiesStructureModule = defineLineStructureModule({
  slug: 'current_liabilities_structure',
  label: '流动负债结构',
  description:
    '各年末每个流动负债项目的金额及占流动负债合计的比重；明细合计与流动负债合计的差额列为“其他流动负债项目（差额）”，占比合计为100。',
  lines: catalogueKeys('balance', ['current_liabilities']),
  base: { key: 'total_current_liabilities', label: '流动负债合计' },
  // Not `other_current_liabilities`: that is a statement line of its own (其他流动负债).
  remainder: { key: 'other_current_liability_items', label: '其他流动负债项目（差额）' },
});
