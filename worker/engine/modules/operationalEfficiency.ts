/** 营运能力分析: turnover of total assets, receivables, inventory and payables, and turnover days. */
import type { ReportContext } from '../context.ts';
import { add, average, type Num, num, ratio } from '../decimal.ts';
import { defineIndicatorModule, sharedCompute } from '../indicator.ts';
import { materialityNote } from '../materiality.ts';
import type { LineRef, MetricDef, RiskRule } from '../module.ts';

const DAYS_IN_YEAR = num(360);

interface Turnover {
  key: string;
  label: string;
  numerator: { key: string; label: string };
  balance: { key: string; label: string };
  /** What a sharp fall means, for the risk message. */
  declineMeaning: string;
}

const TURNOVERS: readonly Turnover[] = [
  {
    key: 'total_asset_turnover',
    label: '总资产周转率',
    numerator: { key: 'revenue', label: '营业收入' },
    balance: { key: 'total_assets', label: '资产总计' },
    declineMeaning: '资产运营效率明显下滑',
  },
  {
    key: 'receivable_turnover',
    label: '应收账款周转率',
    numerator: { key: 'revenue', label: '营业收入' },
    balance: { key: 'accounts_receivable', label: '应收账款' },
    declineMeaning: '回款速度明显放缓',
  },
  {
    key: 'inventory_turnover',
    label: '存货周转率',
    numerator: { key: 'operating_cost', label: '营业成本' },
    balance: { key: 'inventory', label: '存货' },
    declineMeaning: '存货周转明显放缓，需关注积压风险',
  },
  {
    key: 'payable_turnover',
    label: '应付账款周转率',
    numerator: { key: 'operating_cost', label: '营业成本' },
    balance: { key: 'accounts_payable', label: '应付账款' },
    declineMeaning: '付款周期明显拉长，需关注对供应商的偿付压力',
  },
];

function turnoverMetrics(t: Turnover): MetricDef[] {
  const inputs: LineRef[] = [`income.${t.numerator.key}`, `balance.${t.balance.key}`];
  // Shared with the turnover-days metric.
  const turnover = sharedCompute(
    (ctx: ReportContext, year: number): Num =>
      ratio(ctx.line(year, 'income', t.numerator.key), ctx.averageBalance(year, t.balance.key)),
  );
  return [
    {
      key: t.key,
      label: t.label,
      unit: '次',
      formula: `${t.numerator.label} ÷ ((年初${t.balance.label} + 年末${t.balance.label}) ÷ 2)`,
      inputs,
      compute: turnover,
    },
    {
      key: `${t.key}_days`,
      label: `${t.label.replace(/率$/, '')}天数`,
      unit: '天',
      formula: `360 ÷ ${t.label}`,
      inputs,
      note: '周转率为空或为零时为空。',
      compute: (ctx, year) => ratio(DAYS_IN_YEAR, turnover(ctx, year)),
    },
  ];
}

/** 应收账款 + 应收票据 of one balance column; null when neither line is there. */
function receivablesWithNotes(ctx: ReportContext, year: number, column: 'line' | 'prior'): Num {
  const ar = ctx[column](year, 'balance', 'accounts_receivable');
  const notes = ctx[column](year, 'balance', 'notes_receivable');
  if (ar === null && notes === null) return null;
  return add(ar ?? num(0), notes ?? num(0));
}

/** Revenue over average (应收账款 + 应收票据), beside receivable_turnover (应收账款 only). */
const receivableTurnoverInclNotes: MetricDef = {
  key: 'receivable_turnover_incl_notes',
  label: '应收账款周转率（含应收票据）',
  unit: '次',
  formula: '营业收入 ÷ ((年初(应收账款 + 应收票据) + 年末(应收账款 + 应收票据)) ÷ 2)',
  inputs: ['income.revenue', 'balance.accounts_receivable', 'balance.notes_receivable'],
  note: '应收票据缺失时按零计，两行均缺失时为空。receivable_turnover（仅应收账款）与东方财富、同花顺的应收账款周转率口径一致；本指标对应“应收票据及应收账款周转率”口径（票据结算占比高的企业两者差异较大）。',
  compute: (ctx, year) =>
    ratio(
      ctx.line(year, 'income', 'revenue'),
      average(receivablesWithNotes(ctx, year, 'prior'), receivablesWithNotes(ctx, year, 'line')),
    ),
};

const turnoverDeclineRule = (t: Turnover): RiskRule => ({
  code: `operational_efficiency.${t.key}_decline`,
  metric: t.key,
  kind: 'decline',
  tiers: [{ level: 'warning', threshold: 30 }],
  description: `${t.label}较上年下降超过30%${t.balance.key === 'total_assets' ? '' : materialityNote('balance')}。`,
  ...(t.balance.key === 'total_assets' ? {} : { materialLine: { sheet: 'balance', key: t.balance.key } }),
  message: `{year}年${t.label}为{value}，较{prior_year}年的{prior_value}下降{decline}，降幅超过{threshold}，${t.declineMeaning}。`,
});

export const operationalEfficiencyModule = defineIndicatorModule({
  slug: 'operational_efficiency',
  label: '营运能力分析',
  section: 'comprehensive_analysis',
  description: '总资产、应收账款、存货、应付账款周转率及周转天数（平均余额为同年年初与年末余额的平均数）。',
  metrics: [...TURNOVERS.flatMap(turnoverMetrics), receivableTurnoverInclNotes],
  riskRules: TURNOVERS.map(turnoverDeclineRule),
});
