/**
 * 资产负债规模: year-end totals of current and non-current assets, current and non-current liabilities and
 * equity, with their shares of total assets. Both sides use 资产总计 as the base (assets = liabilities + equity);
 * a remainder share on each side absorbs any amount the subtotals do not explain, so each side adds up to 100.
 */
import { pct } from '../../decimal.ts';
import { defineIndicatorModule } from '../../indicator.ts';
import type { LineRef, MetricDef } from '../../module.ts';
import { amountMetric, periodMetric, remainderShare } from './shared.ts';

interface Part {
  key: string;
  label: string;
}

const ASSET_PARTS: readonly Part[] = [
  { key: 'total_current_assets', label: '流动资产合计' },
  { key: 'total_noncurrent_assets', label: '非流动资产合计' },
];

const FUNDING_PARTS: readonly Part[] = [
  { key: 'total_current_liabilities', label: '流动负债合计' },
  { key: 'total_noncurrent_liabilities', label: '非流动负债合计' },
  { key: 'total_shareholders_equity', label: '所有者权益合计' },
];

const SHARE_KEYS: Readonly<Record<string, string>> = {
  total_current_assets: 'current_assets_share',
  total_noncurrent_assets: 'noncurrent_assets_share',
  total_current_liabilities: 'current_liabilities_share',
  total_noncurrent_liabilities: 'noncurrent_liabilities_share',
  total_shareholders_equity: 'equity_share',
};

const balanceRef = (key: string): LineRef => `balance.${key}`;

const shareMetric = (part: Part): MetricDef =>
  periodMetric(
    {
      key: SHARE_KEYS[part.key]!,
      label: `${part.label.replace(/合计$/, '')}占资产总计比重`,
      unit: '%',
      formula: `年末${part.label} ÷ 年末资产总计 × 100`,
      inputs: [balanceRef(part.key), 'balance.total_assets'],
    },
    (p) => pct(p.balance(part.key), p.balance('total_assets')),
  );

const remainderMetric = (key: string, label: string, parts: readonly Part[]): MetricDef =>
  periodMetric(
    {
      key,
      label,
      unit: '%',
      formula: `(年末资产总计 − ${parts.map((part) => part.label).join(' − ')}) ÷ 年末资产总计 × 100`,
      inputs: ['balance.total_assets', ...parts.map((part) => balanceRef(part.key))],
      note: '各小计与资产总计一致时为0；任一项缺失时为空。',
    },
    (p) =>
      remainderShare(
        p.balance('total_assets'),
        parts.map((part) => p.balance(part.key)),
      ),
  );

export const reportingPeriodBalanceSheetModule = defineIndicatorModule({
  slug: 'reporting_period_balance_sheet',
  label: '资产负债规模',
  section: 'enterprise_overview',
  description:
    '年末流动资产、非流动资产、资产总计、流动负债、非流动负债、负债合计与所有者权益合计（万元），以及各项占资产总计的比重。',
  metrics: [
    ...ASSET_PARTS.map((part) => amountMetric(balanceRef(part.key), { label: part.label })),
    amountMetric('balance.total_assets', { label: '资产总计' }),
    ...FUNDING_PARTS.slice(0, 2).map((part) => amountMetric(balanceRef(part.key), { label: part.label })),
    amountMetric('balance.total_liabilities', { label: '负债合计' }),
    amountMetric('balance.total_shareholders_equity', { label: '所有者权益合计' }),
    ...ASSET_PARTS.map(shareMetric),
    remainderMetric('other_assets_share', '其他资产占比（差额）', ASSET_PARTS),
    ...FUNDING_PARTS.map(shareMetric),
    remainderMetric('other_liabilities_equity_share', '其他负债及权益占比（差额）', FUNDING_PARTS),
  ],
});
