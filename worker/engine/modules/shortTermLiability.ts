/** 短期偿债能力分析: liquidity ratios and working capital from year-end balances. */
import type { ReportContext } from '../context.ts';
import { add, pct, ratio, sub, toWan } from '../decimal.ts';
import { defineIndicatorModule } from '../indicator.ts';

const balance = (ctx: ReportContext, year: number, key: string) => ctx.line(year, 'balance', key);

export const shortTermLiabilityModule = defineIndicatorModule({
  slug: 'short_term_liability',
  label: '短期偿债能力分析',
  section: 'comprehensive_analysis',
  description: '流动比率、速动比率、现金比率、现金流动负债比率与营运资金（年末余额）。',
  metrics: [
    {
      key: 'current_ratio',
      label: '流动比率',
      unit: '倍',
      formula: '年末流动资产合计 ÷ 年末流动负债合计',
      inputs: ['balance.total_current_assets', 'balance.total_current_liabilities'],
      compute: (ctx, year) =>
        ratio(balance(ctx, year, 'total_current_assets'), balance(ctx, year, 'total_current_liabilities')),
    },
    {
      key: 'quick_ratio',
      label: '速动比率',
      unit: '倍',
      formula: '(年末流动资产合计 − 年末存货) ÷ 年末流动负债合计',
      inputs: ['balance.total_current_assets', 'balance.inventory', 'balance.total_current_liabilities'],
      note: '存货行缺失时为空（不按零处理）。',
      compute: (ctx, year) =>
        ratio(
          sub(balance(ctx, year, 'total_current_assets'), balance(ctx, year, 'inventory')),
          balance(ctx, year, 'total_current_liabilities'),
        ),
    },
    {
      key: 'cash_ratio',
      label: '现金比率',
      unit: '倍',
      formula: '(年末货币资金 + 年末交易性金融资产) ÷ 年末流动负债合计',
      inputs: [
        'balance.cash_and_equivalents',
        'balance.financial_assets_held_for_trading',
        'balance.total_current_liabilities',
      ],
      // Trading financial assets are near-cash; small enterprises have no such line (短期投资 is not mapped
      // here), so an absent line counts as 0 while the cash line itself is required.
      note: '交易性金融资产缺失时按零计；货币资金缺失时为空。',
      compute: (ctx, year) => {
        const trading = balance(ctx, year, 'financial_assets_held_for_trading');
        const cash = balance(ctx, year, 'cash_and_equivalents');
        return ratio(
          trading === null ? cash : add(cash, trading),
          balance(ctx, year, 'total_current_liabilities'),
        );
      },
    },
    {
      key: 'cash_flow_liability_ratio',
      label: '现金流动负债比率',
      unit: '%',
      formula: '经营活动产生的现金流量净额 ÷ 年末流动负债合计 × 100',
      inputs: ['cash_flow.net_cf_operating', 'balance.total_current_liabilities'],
      note: '国资委绩效评价口径；未提交现金流量表的年度为空。',
      compute: (ctx, year) =>
        pct(ctx.line(year, 'cash_flow', 'net_cf_operating'), balance(ctx, year, 'total_current_liabilities')),
    },
    {
      key: 'working_capital',
      label: '营运资金',
      unit: '万元',
      formula: '(年末流动资产合计 − 年末流动负债合计) ÷ 10000',
      inputs: ['balance.total_current_assets', 'balance.total_current_liabilities'],
      compute: (ctx, year) =>
        toWan(
          sub(balance(ctx, year, 'total_current_assets'), balance(ctx, year, 'total_current_liabilities')),
        ),
    },
  ],
  riskRules: [
    {
      code: 'short_term_liability.current_ratio_low',
      metric: 'current_ratio',
      kind: 'below',
      tiers: [
        { level: 'danger', threshold: 0.5 },
        { level: 'warning', threshold: 1 },
      ],
      description: '流动比率低于1为警告，低于0.5为危险。',
      message: '{year}年末流动比率为{value}，低于{threshold}，流动资产不足以覆盖流动负债，短期偿债压力较大。',
    },
    {
      code: 'short_term_liability.quick_ratio_low',
      metric: 'quick_ratio',
      kind: 'below',
      tiers: [{ level: 'warning', threshold: 0.5 }],
      description: '速动比率低于0.5。',
      message: '{year}年末速动比率为{value}，低于{threshold}，扣除存货后的速动资产对流动负债的保障不足。',
    },
  ],
});
