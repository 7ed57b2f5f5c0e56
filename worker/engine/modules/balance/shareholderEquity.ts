/**
 * 股东权益分析: equity ratio, long-term debt to equity, retained earnings growth and the SASAC capital
 * preservation and appreciation ratio (资本保值增值率).
 */
import type { ReportContext } from '../../context.ts';
import { pct, toWan } from '../../decimal.ts';
import { defineIndicatorModule } from '../../indicator.ts';

const balance = (ctx: ReportContext, year: number, key: string) => ctx.line(year, 'balance', key);

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
      formula: '年末所有者权益合计 ÷ 年初所有者权益合计 × 100',
      inputs: ['balance.total_shareholders_equity'],
      // SASAC (国资委绩效评价) formula without its adjustment for objective factors (capital injections etc.),
      // which a statement alone cannot identify.
      note: '国资委绩效评价口径，未扣除客观增减因素；年初数取本年资产负债表的年初余额；年初所有者权益为零、为负或缺失时为空。',
      compute: (ctx, year) => {
        const beginning = ctx.prior(year, 'balance', 'total_shareholders_equity');
        if (beginning === null || !beginning.greaterThan(0)) return null;
        return pct(balance(ctx, year, 'total_shareholders_equity'), beginning);
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
    {
      code: 'shareholder_equity.equity_ratio_low',
      metric: 'equity_ratio',
      kind: 'below',
      tiers: [
        { level: 'danger', threshold: 15 },
        { level: 'warning', threshold: 30 },
      ],
      description: '股东权益比率低于30%为警告，低于15%为危险。',
      message: '{year}年末股东权益比率为{value}，低于{threshold}，资产主要依靠负债形成，财务结构偏弱。',
    },
    {
      code: 'shareholder_equity.capital_preservation_low',
      metric: 'capital_preservation_ratio',
      kind: 'below',
      tiers: [{ level: 'warning', threshold: 100 }],
      description: '资本保值增值率低于100%（所有者权益较年初减少）。',
      message: '{year}年资本保值增值率为{value}，低于{threshold}，所有者权益未能保值。',
    },
  ],
});
