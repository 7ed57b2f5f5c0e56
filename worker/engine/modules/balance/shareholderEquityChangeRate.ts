/**
 * 所有者权益变动: year-end balance of each main equity line against the prior period (the previous submitted
 * year's year-end balance; for the first submitted year its own beginning balance) as amount change and rate.
 */
import type { ReportContext } from '../../context.ts';
import { sub, toWan } from '../../decimal.ts';
import { defineIndicatorModule } from '../../indicator.ts';
import type { MetricDef } from '../../module.ts';

const EQUITY_LINES = [
  { key: 'paid_in_capital', label: '实收资本（或股本）' },
  { key: 'capital_reserve', label: '资本公积' },
  { key: 'surplus_reserve', label: '盈余公积' },
  { key: 'retained_earnings', label: '未分配利润' },
  { key: 'total_shareholders_equity', label: '所有者权益合计' },
] as const;

const PRIOR_NOTE =
  '上年末取本年资产负债表的年初余额（重述后的比较数据，CAS 28）；未列示年初余额时取上一提交年度的年末余额。';

function lineMetrics(line: (typeof EQUITY_LINES)[number]): MetricDef[] {
  const inputs = [`balance.${line.key}`] as const;
  const current = (ctx: ReportContext, year: number) => ctx.line(year, 'balance', line.key);
  const prior = (ctx: ReportContext, year: number) => ctx.priorPeriod(year, 'balance', line.key);
  return [
    {
      key: line.key,
      label: line.label,
      unit: '万元',
      formula: `年末${line.label} ÷ 10000`,
      inputs,
      compute: (ctx, year) => toWan(current(ctx, year)),
    },
    {
      key: `${line.key}_change_amount`,
      label: `${line.label}增减额`,
      unit: '万元',
      formula: `(年末${line.label} − 上年末${line.label}) ÷ 10000`,
      inputs,
      note: PRIOR_NOTE,
      compute: (ctx, year) => toWan(sub(current(ctx, year), prior(ctx, year))),
    },
    {
      key: `${line.key}_change_rate`,
      label: `${line.label}增减率`,
      unit: '%',
      formula: `(年末${line.label} − 上年末${line.label}) ÷ |上年末${line.label}| × 100`,
      inputs,
      // The absolute base keeps the direction readable when the base is negative (accumulated losses shrinking
      // is an increase).
      note: `上年末为零或缺失时为空；分母取绝对值。${PRIOR_NOTE}`,
      compute: (ctx, year) => ctx.lineChangeRate(year, 'balance', line.key),
      nullReason: (ctx, year) => ctx.lineChangeReason(year, 'balance', line.key),
    },
  ];
}

export const shareholderEquityChangeRateModule = defineIndicatorModule({
  slug: 'shareholder_equity_change_rate',
  label: '所有者权益变动',
  section: 'balance_sheet_analysis',
  description: '实收资本、资本公积、盈余公积、未分配利润及所有者权益合计的年末余额、增减额与增减率。',
  metrics: EQUITY_LINES.flatMap(lineMetrics),
  riskRules: [
    // A fall in equity is judged once, by shareholder_equity.capital_preservation_low (after distributions).
    {
      code: 'shareholder_equity_change_rate.retained_earnings_negative',
      metric: 'retained_earnings',
      kind: 'below',
      tiers: [{ level: 'warning', threshold: 0 }],
      description: '年末未分配利润为负（存在累计未弥补亏损）。',
      message: '{year}年末未分配利润为{value}，为负数，企业存在累计未弥补亏损。',
    },
  ],
});
