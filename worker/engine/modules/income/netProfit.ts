/**
 * 净利润分析: income tax expense, the effective tax rate, net profit and its split into continuing and discontinued
 * operations (general formats; null when not submitted), with their changes. Raises a net loss (danger when the
 * loss widened) and an effective tax rate outside 0–40%.
 */
import { type Num, pct, toWan } from '../../decimal.ts';
import { formatValue } from '../../indicator.ts';
import {
  amountAndChange,
  amountMetric,
  type CustomRiskRule,
  currentPeriod,
  defineModule,
  type PeriodFormula,
  periodMetric,
  ppChangeMetric,
  priorPeriod,
  raise,
} from './shared.ts';

/** 所得税费用 ÷ 利润总额 × 100 (negative when a loss still bears tax, or tax is a deferred-tax benefit). */
const effectiveTaxRateOf: PeriodFormula = (p) =>
  pct(p.income('income_tax_expense'), p.income('total_profit'));

const NET_LOSS: CustomRiskRule = {
  code: 'net_profit.net_loss',
  tiers: [
    { level: 'danger', threshold: 0 },
    { level: 'warning', threshold: 0 },
  ],
  description: '净利润为负（亏损）为警告；上年同样亏损且亏损额扩大为危险。',
  message: '{year}年净利润为{value}，企业处于亏损状态{trend}。',
  evaluate(ctx) {
    const year = ctx.latestYear;
    const current = currentPeriod(ctx, year).income('net_profit');
    if (current === null || !current.lessThan(0)) return [];
    const prior: Num = priorPeriod(ctx, year).income('net_profit');
    const widened = prior?.lessThan(0) && current.lessThan(prior);
    const trend =
      prior === null
        ? ''
        : prior.lessThan(0)
          ? `，${year - 1}年亏损${formatValue(toWan(prior.negated())!, '万元')}，亏损${widened ? '扩大' : '收窄或持平'}`
          : `，${year - 1}年净利润为${formatValue(toWan(prior)!, '万元')}，本年转为亏损`;
    return [
      raise(NET_LOSS, widened ? 'danger' : 'warning', {
        year: String(year),
        value: formatValue(toWan(current)!, '万元'),
        trend,
      }),
    ];
  },
};

export const netProfitModule = defineModule({
  slug: 'net_profit',
  label: '净利润分析',
  section: 'income_statement_analysis',
  description: '所得税费用、实际所得税税率、净利润及持续经营/终止经营净利润的金额与变动。',
  metrics: [
    amountMetric('income.total_profit', { label: '利润总额' }),
    ...amountAndChange('income.income_tax_expense', { label: '所得税费用' }),
    periodMetric(
      {
        key: 'effective_tax_rate',
        label: '实际所得税税率',
        unit: '%',
        formula: '所得税费用 ÷ 利润总额 × 100',
        inputs: ['income.income_tax_expense', 'income.total_profit'],
        note: '利润总额为零时为空；利润总额为负而仍有所得税费用时为负值。',
      },
      effectiveTaxRateOf,
    ),
    ppChangeMetric(
      {
        key: 'effective_tax_rate_change',
        label: '实际所得税税率变动',
        unit: '个百分点',
        formula: '本期实际所得税税率 − 上期实际所得税税率',
        inputs: ['income.income_tax_expense', 'income.total_profit'],
      },
      effectiveTaxRateOf,
    ),
    ...amountAndChange('income.net_profit', { label: '净利润' }),
    ...amountAndChange('income.continuing_ops_net_profit', {
      label: '持续经营净利润',
      note: '仅一般企业报表格式列示；未提交时为空。',
    }),
    ...amountAndChange('income.discontinued_ops_net_profit', {
      label: '终止经营净利润',
      note: '仅一般企业报表格式列示；未提交时为空。',
    }),
  ],
  riskRules: [
    {
      code: 'net_profit.effective_tax_rate_negative',
      metric: 'effective_tax_rate',
      kind: 'below',
      tiers: [{ level: 'info', threshold: 0 }],
      description: '实际所得税税率为负（亏损仍计提所得税，或确认了所得税收益）。',
      message:
        '{year}年实际所得税税率为{value}，低于{threshold}，所得税费用与利润总额方向相反，需关注纳税调整或递延所得税的影响。',
    },
    {
      code: 'net_profit.effective_tax_rate_high',
      metric: 'effective_tax_rate',
      kind: 'above',
      tiers: [{ level: 'info', threshold: 40 }],
      description: '实际所得税税率高于40%（明显高于25%的法定税率）。',
      message:
        '{year}年实际所得税税率为{value}，高于{threshold}，明显高于25%的法定税率，可能存在较多不可抵扣项目或未确认递延所得税资产的亏损。',
    },
  ],
  customRules: [NET_LOSS],
});
