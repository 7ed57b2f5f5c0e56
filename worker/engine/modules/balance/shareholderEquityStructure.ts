/**
 * 所有者权益结构: paid-in capital, capital reserve, surplus reserve and retained earnings as shares of total
 * equity, with the remaining equity lines (other equity instruments, OCI, special reserve, treasury stock,
 * minority interests …) as one remainder so the shares sum to 100. With zero or negative total equity the shares
 * have no meaning and are null; negative equity is raised as a danger.
 */
import type { ReportContext } from '../../context.ts';
import { sub, sum, toWan } from '../../decimal.ts';
import { defineIndicatorModule } from '../../indicator.ts';
import type { MetricDef } from '../../module.ts';
import { shareOf } from './shared.ts';

const EQUITY_LINES = [
  { key: 'paid_in_capital', label: '实收资本（或股本）' },
  { key: 'capital_reserve', label: '资本公积' },
  { key: 'surplus_reserve', label: '盈余公积' },
  { key: 'retained_earnings', label: '未分配利润' },
] as const;

const balance = (ctx: ReportContext, year: number, key: string) => ctx.line(year, 'balance', key);
const totalEquity = (ctx: ReportContext, year: number) => balance(ctx, year, 'total_shareholders_equity');

/** Total equity − the four lines; a missing line counts as 0 (its amount falls into the remainder). */
const otherEquity = (ctx: ReportContext, year: number) =>
  sub(
    totalEquity(ctx, year),
    sum(
      EQUITY_LINES.map((l) => balance(ctx, year, l.key)),
      { missingAsZero: true },
    ),
  );

const ALL_INPUTS = [
  ...EQUITY_LINES.map((l) => `balance.${l.key}` as const),
  'balance.total_shareholders_equity',
] as const;
const SHARE_NOTE = '所有者权益合计缺失、为零或为负时为空（负权益下的占比无意义）。';

const lineMetrics = (line: (typeof EQUITY_LINES)[number]): MetricDef[] => [
  {
    key: line.key,
    label: line.label,
    unit: '万元',
    formula: `年末${line.label} ÷ 10000`,
    inputs: [`balance.${line.key}`],
    compute: (ctx, year) => toWan(balance(ctx, year, line.key)),
  },
  {
    key: `${line.key}_share`,
    label: `${line.label}占比`,
    unit: '%',
    formula: `年末${line.label} ÷ 年末所有者权益合计 × 100`,
    inputs: [`balance.${line.key}`, 'balance.total_shareholders_equity'],
    note: SHARE_NOTE,
    compute: (ctx, year) => shareOf(balance(ctx, year, line.key), totalEquity(ctx, year)),
  },
];

export const shareholderEquityStructureModule = defineIndicatorModule({
  slug: 'shareholder_equity_structure',
  label: '所有者权益结构',
  section: 'balance_sheet_analysis',
  description:
    '各年末实收资本、资本公积、盈余公积、未分配利润及其他权益项目（差额）占所有者权益合计的比重，占比合计为100。',
  metrics: [
    ...EQUITY_LINES.flatMap(lineMetrics),
    {
      key: 'other_equity',
      label: '其他权益项目（差额）',
      unit: '万元',
      formula: '(年末所有者权益合计 − 实收资本 − 资本公积 − 盈余公积 − 未分配利润) ÷ 10000',
      inputs: ALL_INPUTS,
      note: '包括其他权益工具、其他综合收益、专项储备、库存股（减项）、少数股东权益等；缺失的四项按零计。',
      compute: (ctx, year) => toWan(otherEquity(ctx, year)),
    },
    {
      key: 'other_equity_share',
      label: '其他权益项目占比',
      unit: '%',
      formula: '其他权益项目（差额） ÷ 年末所有者权益合计 × 100',
      inputs: ALL_INPUTS,
      note: `与四项占比合计为100。${SHARE_NOTE}`,
      compute: (ctx, year) => shareOf(otherEquity(ctx, year), totalEquity(ctx, year)),
    },
    {
      key: 'total_shareholders_equity',
      label: '所有者权益合计',
      unit: '万元',
      formula: '年末所有者权益合计 ÷ 10000',
      inputs: ['balance.total_shareholders_equity'],
      compute: (ctx, year) => toWan(totalEquity(ctx, year)),
    },
  ],
  // Negative equity is one fact: long_term_liability.negative_equity raises it.
  riskRules: [],
});
