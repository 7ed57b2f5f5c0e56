/** 长期偿债能力分析: leverage from year-end balances and interest coverage. */
import type { ReportContext } from '../context.ts';
import { add, pct, ratio, toWan } from '../decimal.ts';
import { sharedCompute } from '../indicator.ts';
import type { AnalysisModule, RiskRuleDoc } from '../module.ts';
import { defineIndicatorModuleWithRules, riskItem, wanText } from './balance/shared.ts';

const balance = (ctx: ReportContext, year: number, key: string) => ctx.line(year, 'balance', key);

export const NEGATIVE_EQUITY_RULE: RiskRuleDoc = {
  code: 'long_term_liability.negative_equity',
  tiers: [{ level: 'danger', threshold: 0 }],
  description: '每个提交年度单独判断：年末所有者权益合计为负（资不抵债）为该年的危险。',
  message: '{year}年末所有者权益合计为{value}，为负数，企业已资不抵债。',
};

const withRules = defineIndicatorModuleWithRules(
  {
    slug: 'long_term_liability',
    label: '长期偿债能力分析',
    section: 'comprehensive_analysis',
    description: '资产负债率、权益乘数、产权比率与利息保障倍数。',
    metrics: [
      {
        key: 'debt_to_asset_ratio',
        label: '资产负债率',
        unit: '%',
        formula: '年末负债合计 ÷ 年末资产总计 × 100',
        inputs: ['balance.total_liabilities', 'balance.total_assets'],
        compute: sharedCompute((ctx, year) =>
          pct(balance(ctx, year, 'total_liabilities'), balance(ctx, year, 'total_assets')),
        ),
      },
      {
        key: 'equity_multiplier',
        label: '权益乘数',
        unit: '倍',
        formula: '年末资产总计 ÷ 年末所有者权益合计',
        inputs: ['balance.total_assets', 'balance.total_shareholders_equity'],
        note: '所有者权益为零时为空；为负时照常计算（结果为负），并由“所有者权益为负”规则提示危险。',
        compute: (ctx, year) =>
          ratio(balance(ctx, year, 'total_assets'), balance(ctx, year, 'total_shareholders_equity')),
      },
      {
        key: 'debt_to_equity_ratio',
        label: '产权比率',
        unit: '%',
        formula: '年末负债合计 ÷ 年末所有者权益合计 × 100',
        inputs: ['balance.total_liabilities', 'balance.total_shareholders_equity'],
        note: '所有者权益为零时为空；为负时照常计算。',
        compute: (ctx, year) =>
          pct(balance(ctx, year, 'total_liabilities'), balance(ctx, year, 'total_shareholders_equity')),
      },
      {
        key: 'interest_coverage',
        label: '利息保障倍数',
        unit: '倍',
        formula: '(利润总额 + 利息费用) ÷ 利息费用',
        inputs: ['income.total_profit', 'income.interest_expense'],
        // Small-enterprise statements report 利息费用 net of interest income (收入以“-”号填列): a negative
        // figure is net interest income, and there is no interest burden to cover.
        note: '利息费用缺失、为零或为负（净利息收入）时为空。',
        compute: (ctx, year) => {
          const interest = ctx.line(year, 'income', 'interest_expense');
          if (interest === null || interest.lessThanOrEqualTo(0)) return null;
          return ratio(add(ctx.line(year, 'income', 'total_profit'), interest), interest);
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
        code: 'long_term_liability.debt_to_asset_ratio_high',
        metric: 'debt_to_asset_ratio',
        kind: 'above',
        tiers: [
          { level: 'danger', threshold: 85 },
          { level: 'warning', threshold: 70 },
        ],
        description:
          '资产负债率高于70%为警告，高于85%为危险；所有者权益为负（资产负债率超过100%）时由“所有者权益为负”一条提示，不重复。',
        message: '{year}年末资产负债率为{value}，高于{threshold}，负债水平偏高，长期偿债风险较大。',
      },
      {
        code: 'long_term_liability.interest_coverage_low',
        metric: 'interest_coverage',
        kind: 'below',
        tiers: [
          { level: 'danger', threshold: 1 },
          { level: 'warning', threshold: 1.5 },
        ],
        description: '利息保障倍数低于1.5为警告，低于1为危险。',
        message: '{year}年利息保障倍数为{value}，低于{threshold}，息税前利润对利息费用的保障不足。',
      },
    ],
  },
  [
    {
      doc: NEGATIVE_EQUITY_RULE,
      // Every submitted year: negative equity in a middle year of the window is a risk of that year.
      evaluate: (ctx) =>
        ctx.years.flatMap((year) => {
          const equity = balance(ctx, year, 'total_shareholders_equity');
          return equity?.isNegative()
            ? [riskItem(NEGATIVE_EQUITY_RULE, 'danger', { year: String(year), value: wanText(equity) })]
            : [];
        }),
    },
  ],
);

/**
 * One fact, one risk: negative equity in the released year is the same fact as a debt ratio above 100 %, raised
 * once (negative_equity), not also as a high debt ratio.
 */
export const longTermLiabilityModule: AnalysisModule = {
  ...withRules,
  compute(ctx) {
    const result = withRules.compute(ctx);
    if (!balance(ctx, ctx.latestYear, 'total_shareholders_equity')?.isNegative()) return result;
    return {
      ...result,
      risk_items: result.risk_items.filter(
        (item) => item.code !== 'long_term_liability.debt_to_asset_ratio_high',
      ),
    };
  },
};
