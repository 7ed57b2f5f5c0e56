/**
 * 增长质量分析: whether receivables and inventory grow in step with revenue. Growth of year-end balances of
 * 应收账款 and 存货 is set against revenue growth; a balance growing much faster than revenue suggests sales on
 * looser credit or stock piling up.
 */
import { sub } from '../../decimal.ts';
import { defineIndicatorModule } from '../../indicator.ts';
import { materialityNote } from '../../materiality.ts';
import type { MetricDef, RiskRule } from '../../module.ts';
import { amountAndChange, lineChangeRateMetric } from './shared.ts';

interface BalanceLine {
  key: string;
  label: string;
  gapKey: string;
  meaning: string;
}

const LINES: readonly BalanceLine[] = [
  {
    key: 'accounts_receivable',
    label: '应收账款',
    gapKey: 'receivable_growth_gap',
    meaning: '收入增长可能依赖放宽信用政策，需关注回款风险与收入质量',
  },
  {
    key: 'inventory',
    label: '存货',
    gapKey: 'inventory_growth_gap',
    meaning: '存货增长与销售不匹配，需关注存货积压与跌价风险',
  },
];

const gapMetric = (l: BalanceLine): MetricDef => ({
  key: l.gapKey,
  label: `${l.label}增速超出收入增速`,
  unit: '个百分点',
  formula: `年末${l.label}变动率 − 营业收入变动率`,
  inputs: [`balance.${l.key}`, 'income.revenue'],
  note: `${l.label}变动率按年末余额计算（上期为上一年末余额）。任一变动率为空时为空。`,
  compute: (ctx, year) =>
    sub(ctx.lineChangeRate(year, 'balance', l.key), ctx.lineChangeRate(year, 'income', 'revenue')),
  nullReason: (ctx, year) =>
    ctx.lineChangeReason(year, 'balance', l.key) ?? ctx.lineChangeReason(year, 'income', 'revenue'),
});

const gapRule = (l: BalanceLine): RiskRule => ({
  code: `growth_quality_analysis.${l.gapKey}_high`,
  metric: l.gapKey,
  kind: 'above',
  tiers: [
    { level: 'danger', threshold: 50 },
    { level: 'warning', threshold: 20 },
  ],
  description: `年末${l.label}增长率高于营业收入增长率超过20个百分点为警告，超过50个百分点为危险${materialityNote('balance')}。`,
  materialLine: { sheet: 'balance', key: l.key },
  message: `{year}年末${l.label}增长率比营业收入增长率高{value}，超过{threshold}，${l.meaning}。`,
});

export const growthQualityAnalysisModule = defineIndicatorModule({
  slug: 'growth_quality_analysis',
  label: '增长质量分析',
  section: 'income_statement_analysis',
  description: '比较年末应收账款、存货的增长率与营业收入增长率，评估收入增长的质量。',
  metrics: [
    lineChangeRateMetric('income.revenue', { label: '营业收入' }),
    ...LINES.flatMap((l) => amountAndChange(`balance.${l.key}`, { label: l.label })),
    ...LINES.map(gapMetric),
  ],
  riskRules: LINES.map(gapRule),
});
