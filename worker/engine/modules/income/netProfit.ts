/**
 * 净利润分析: income tax expense, the effective tax rate, net profit and its split into continuing and discontinued
 * operations (general formats; null when not submitted), with their changes. Raises a net loss (danger when the
 * loss widened) and an effective tax rate outside 0–40%.
 */
import { Decimal } from 'decimal.js';
import type { ReportContext } from '../../context.ts';
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
  description:
    '每个提交年度单独判断：净利润为负（亏损）为该年的警告；连续两年或以上亏损（上年同样亏损）为危险。',
  message: '{year}年净利润为{value}，企业处于亏损状态{trend}。',
  evaluate(ctx) {
    // Every submitted year is judged: a loss in a middle year of the window is a risk of that year.
    return ctx.years.flatMap((year) => {
      const current = currentPeriod(ctx, year).income('net_profit');
      if (current === null || !current.lessThan(0)) return [];
      const prior: Num = priorPeriod(ctx, year).income('net_profit');
      const consecutive = prior?.lessThan(0) === true;
      const trend =
        prior === null
          ? ''
          : consecutive
            ? `，${year - 1}年亏损${formatValue(toWan(prior.negated())!, '万元')}，连续两年亏损，亏损${current.lessThan(prior) ? '扩大' : '收窄或持平'}`
            : `，${year - 1}年净利润为${formatValue(toWan(prior)!, '万元')}，本年转为亏损`;
      return [
        raise(NET_LOSS, consecutive ? 'danger' : 'warning', {
          year: String(year),
          value: formatValue(toWan(current)!, '万元'),
          trend,
        }),
      ];
    });
  },
};

/** Revenue floor of the exchanges' financial risk-warning condition (SSE/SZSE 股票上市规则, 2020–2022 editions). */
export const EXCHANGE_REVENUE_FLOOR_YUAN = 100_000_000;

const LISTING_RULES =
  '《上海证券交易所股票上市规则》（2022年1月修订）第9.3.2条、《深圳证券交易所股票上市规则》（2022年修订）第9.3.1条';

/** Whether the exchanges' risk-warning conditions apply: enterprise_info.enterprise_type names a listed company. */
export function isListed(ctx: ReportContext): boolean {
  const type = ctx.report.enterpriseInfo?.enterprise_type ?? '';
  return /上市/.test(type) && !/非上市|未上市/.test(type);
}

const EXCHANGE_RISK_WARNING: CustomRiskRule = {
  code: 'net_profit.exchange_risk_warning',
  tiers: [{ level: 'danger', threshold: 0 }],
  description: `仅当 enterprise_info.enterprise_type 含“上市”（如“上市公司”）时判断，每个提交年度单独判断，对照${LISTING_RULES}的财务类退市风险警示情形：（一）利润总额、净利润孰低者为负值且营业收入低于1亿元（规则以扣除非经常性损益前后孰低的净利润为准，报表不含扣非净利润，故仅以利润总额与净利润判断，营业收入未扣除与主营业务无关的收入）；（二）期末净资产（归属于母公司所有者权益，未提交时取所有者权益合计）为负值。触及任一情形为危险。2024年修订的规则将主板营业收入门槛提高至3亿元，本服务未据此调整。`,
  message: '{year}年{condition}，触及沪深交易所股票上市规则的财务类退市风险警示情形（{rules}）。',
  evaluate(ctx) {
    if (!isListed(ctx)) return [];
    return ctx.years.flatMap((year) => {
      const p = currentPeriod(ctx, year);
      const profits = [p.income('total_profit'), p.income('net_profit')].filter(
        (v): v is Decimal => v !== null,
      );
      const revenue = p.income('revenue');
      const equity =
        ctx.line(year, 'balance', 'equity_attributable_to_parent') ??
        ctx.line(year, 'balance', 'total_shareholders_equity');
      const conditions: string[] = [];
      const lowest = profits.length ? Decimal.min(...profits) : null;
      if (lowest?.isNegative() && revenue?.lessThan(EXCHANGE_REVENUE_FLOOR_YUAN))
        conditions.push(
          `利润总额、净利润孰低者为${formatValue(toWan(lowest)!, '万元')}（负值）且营业收入${formatValue(toWan(revenue)!, '万元')}低于1亿元`,
        );
      if (equity?.isNegative()) conditions.push(`期末净资产为${formatValue(toWan(equity)!, '万元')}（负值）`);
      return conditions.length
        ? [
            raise(EXCHANGE_RISK_WARNING, 'danger', {
              year: String(year),
              condition: conditions.join('；'),
              rules: LISTING_RULES,
            }),
          ]
        : [];
    });
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
  customRules: [NET_LOSS, EXCHANGE_RISK_WARNING],
});
