/**
 * 股东权益分析: equity ratio, long-term debt to equity, retained earnings growth and the SASAC capital
 * preservation and appreciation ratio (资本保值增值率).
 */

import { Decimal } from 'decimal.js';
import type { ReportContext } from '../../context.ts';
import { num, pct, toWan } from '../../decimal.ts';
import { defineIndicatorModule } from '../../indicator.ts';

const balance = (ctx: ReportContext, year: number, key: string) => ctx.line(year, 'balance', key);
const cashFlow = (ctx: ReportContext, year: number, key: string) => ctx.line(year, 'cash_flow', key);

/** Distributions and buybacks to owners in `year` (客观减少因素): never negative. */
function objectiveDecrease(ctx: ReportContext, year: number): Decimal {
  const dividendsPaid = cashFlow(ctx, year, 'dividends_paid');
  const mixed = cashFlow(ctx, year, 'dividends_interest_paid');
  const interest = ctx.line(year, 'income', 'interest_expense');
  const distributions =
    dividendsPaid ?? (mixed === null ? num(0) : Decimal.max(num(0), mixed.minus(interest ?? num(0))));
  const treasury = balance(ctx, year, 'treasury_stock');
  const treasuryBefore = ctx.prior(year, 'balance', 'treasury_stock');
  const buyback = treasury === null ? num(0) : Decimal.max(num(0), treasury.minus(treasuryBefore ?? num(0)));
  return distributions.plus(buyback);
}

/** Capital paid in by owners in `year` (客观增加因素). */
function capitalPaidIn(ctx: ReportContext, year: number): Decimal {
  return cashFlow(ctx, year, 'capital_received') ?? num(0);
}

export const shareholderEquityModule = defineIndicatorModule({
  slug: 'shareholder_equity',
  label: '股东权益分析',
  section: 'comprehensive_analysis',
  description: '股东权益比率、长期负债权益比、未分配利润增长率与资本保值增值率。',
  metrics: [
    {
      key: 'equity_ratio',
      label: '股东权益比率',
      unit: '%',
      formula: '年末所有者权益合计 ÷ 年末资产总计 × 100',
      inputs: ['balance.total_shareholders_equity', 'balance.total_assets'],
      note: '资产总计为零或缺失时为空；权益为负时照常计算（结果为负）。',
      compute: (ctx, year) =>
        pct(balance(ctx, year, 'total_shareholders_equity'), balance(ctx, year, 'total_assets')),
    },
    {
      key: 'long_term_debt_to_equity_ratio',
      label: '长期负债权益比',
      unit: '%',
      formula: '年末非流动负债合计 ÷ 年末所有者权益合计 × 100',
      inputs: ['balance.total_noncurrent_liabilities', 'balance.total_shareholders_equity'],
      // Same convention as long_term_liability's 产权比率: computed over negative equity, the negative equity itself
      // being flagged as a danger elsewhere.
      note: '所有者权益为零或缺失时为空；为负时照常计算（结果为负）。',
      compute: (ctx, year) =>
        pct(
          balance(ctx, year, 'total_noncurrent_liabilities'),
          balance(ctx, year, 'total_shareholders_equity'),
        ),
    },
    {
      key: 'retained_earnings_growth_rate',
      label: '未分配利润增长率',
      unit: '%',
      formula: '(年末未分配利润 − 上年末未分配利润) ÷ |上年末未分配利润| × 100',
      inputs: ['balance.retained_earnings'],
      note: '上年末取本年年初余额（重述后的比较数据；未列示时取上一提交年度的年末余额）；上年末为零或缺失时为空；分母取绝对值，累计亏损减少为正增长。',
      compute: (ctx, year) => ctx.lineChangeRate(year, 'balance', 'retained_earnings'),
      nullReason: (ctx, year) => ctx.lineChangeReason(year, 'balance', 'retained_earnings'),
    },
    {
      key: 'capital_preservation_ratio',
      label: '资本保值增值率',
      unit: '%',
      formula:
        '(年末所有者权益合计 + 本年对所有者的分配 + 本年回购（库存股增加额） − 本年吸收投资收到的现金) ÷ 年初所有者权益合计 × 100',
      inputs: [
        'balance.total_shareholders_equity',
        'balance.treasury_stock',
        'cash_flow.dividends_interest_paid',
        'cash_flow.dividends_paid',
        'income.interest_expense',
        'cash_flow.capital_received',
      ],
      // SASAC (国资委绩效评价): 扣除客观增减因素后的年末所有者权益 ÷ 年初所有者权益. The objective factors a
      // statement shows: distributions and buybacks to owners (added back) and capital paid in (deducted).
      note: '国资委绩效评价口径，按报表可识别的客观增减因素调整：加回对所有者的分配（小企业会计准则取“分配利润支付的现金”；其他准则取“分配股利、利润或偿付利息支付的现金”减利润表利息费用，不低于0，为估计值）与库存股增加额，扣除“吸收投资收到的现金”；缺失的调整项按0处理。年初数取本年资产负债表的年初余额；年初所有者权益为零、为负或缺失时为空。',
      compute: (ctx, year) => {
        const beginning = ctx.prior(year, 'balance', 'total_shareholders_equity');
        const ending = balance(ctx, year, 'total_shareholders_equity');
        if (beginning === null || !beginning.greaterThan(0) || ending === null) return null;
        return pct(ending.plus(objectiveDecrease(ctx, year)).minus(capitalPaidIn(ctx, year)), beginning);
      },
    },
    {
      key: 'total_shareholders_equity',
      label: '所有者权益合计',
      unit: '万元',
      formula: '年末所有者权益合计 ÷ 10000',
      inputs: ['balance.total_shareholders_equity'],
      compute: (ctx, year) => toWan(balance(ctx, year, 'total_shareholders_equity')),
    },
  ],
  riskRules: [
    // The equity ratio is 100 − the debt ratio: long_term_liability.debt_to_asset_ratio_high raises that fact once.
    {
      code: 'shareholder_equity.capital_preservation_low',
      metric: 'capital_preservation_ratio',
      kind: 'below',
      tiers: [{ level: 'warning', threshold: 100 }],
      description:
        '资本保值增值率低于100%：加回分配与回购、扣除吸收投资后，所有者权益仍较年初减少（经营亏损等内生原因）。',
      message:
        '{year}年资本保值增值率（加回对所有者的分配与回购、扣除吸收投资）为{value}，低于{threshold}，所有者权益未能保值。',
    },
  ],
});
