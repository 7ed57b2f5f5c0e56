/** 负债结构概览: current vs non-current liabilities at each year end, as amounts and shares of total liabilities. */
import { defineIndicatorModule } from '../../indicator.ts';
import { splitMetrics } from './shared.ts';

export const liabilityStructureOverviewModule = defineIndicatorModule({
  slug: 'liability_structure_overview',
  label: '负债结构概览',
  section: 'balance_sheet_analysis',
  description:
    '各年末流动负债与非流动负债的金额及其占负债合计的比重（以负债合计为基数，含差额项，占比合计为100）。',
  metrics: splitMetrics({
    sheet: 'balance',
    base: { key: 'total_liabilities', line: 'total_liabilities', label: '负债合计' },
    parts: [
      { key: 'current_liabilities', line: 'total_current_liabilities', label: '流动负债合计' },
      { key: 'noncurrent_liabilities', line: 'total_noncurrent_liabilities', label: '非流动负债合计' },
    ],
    remainder: { key: 'other_liabilities', label: '其他负债（差额）' },
  }),
  riskRules: [
    {
      code: 'liability_structure_overview.current_share_high',
      metric: 'current_liabilities_share',
      kind: 'above',
      tiers: [{ level: 'info', threshold: 90 }],
      description: '流动负债占负债合计的比重高于90%，债务集中于一年内到期。',
      message:
        '{year}年末流动负债占负债合计的比重为{value}，高于{threshold}，债务几乎全部为一年内到期的流动负债，需关注短期偿付与续借压力。',
    },
  ],
});
