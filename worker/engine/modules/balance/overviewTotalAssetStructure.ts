/** 资产结构概览: current vs non-current assets at each year end, as amounts and shares of total assets. */
import { defineIndicatorModule } from '../../indicator.ts';
import { splitMetrics } from './shared.ts';

export const overviewTotalAssetStructureModule = defineIndicatorModule({
  slug: 'overview_total_asset_structure',
  label: '资产结构概览',
  section: 'balance_sheet_analysis',
  description:
    '各年末流动资产与非流动资产的金额及其占资产总计的比重（以资产总计为基数，含差额项，占比合计为100）。',
  metrics: splitMetrics({
    sheet: 'balance',
    base: { key: 'total_assets', line: 'total_assets', label: '资产总计' },
    parts: [
      { key: 'current_assets', line: 'total_current_assets', label: '流动资产合计' },
      { key: 'noncurrent_assets', line: 'total_noncurrent_assets', label: '非流动资产合计' },
    ],
    remainder: { key: 'other_assets', label: '其他资产（差额）' },
  }),
});
