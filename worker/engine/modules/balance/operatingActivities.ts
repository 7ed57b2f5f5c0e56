/**
 * 经营活动现金流分析: operating inflow, outflow and net with their change rates, the main detail lines, cash
 * collected from sales against revenue (收现比) and net operating cash flow against net profit (净现比).
 */
import type { RiskItem } from '../../../types.ts';
import type { ReportContext } from '../../context.ts';
import { pct } from '../../decimal.ts';
import type { RiskRuleDoc } from '../../module.ts';
import {
  type CustomRiskRule,
  cashFlowMissingItems,
  cashFlowMissingRule,
  cashLineMetric,
  defineIndicatorModuleWithRules,
  flowMetrics,
  flowsOf,
  OPERATING,
  operatingCashToProfit,
  priorFlowsOf,
  riskItem,
  sectionInputs,
  wanText,
} from './shared.ts';

const SLUG = 'operating_activities';

export const NEGATIVE_OPERATING_CASH_RULE: RiskRuleDoc = {
  code: `${SLUG}.net_operating_cash_negative`,
  tiers: [
    { level: 'danger', threshold: 0 },
    { level: 'warning', threshold: 0 },
  ],
  description:
    '每个提交年度单独判断：经营活动现金流量净额为负为该年的警告；连续两年（该年与上一年）为负为危险。',
  message:
    '{year}年经营活动产生的现金流量净额为{value}，为负数{streak}，经营活动未能带来现金净流入，需关注回款与营运资金压力。',
};

const negativeOperatingCash: CustomRiskRule = {
  doc: NEGATIVE_OPERATING_CASH_RULE,
  evaluate(ctx: ReportContext): RiskItem[] {
    // Every submitted year with a cash flow statement: an outflow in a middle year is a risk of that year.
    return ctx.years.flatMap((year) => {
      const net = flowsOf(ctx, year, OPERATING).net;
      if (net === null || !net.isNegative()) return [];
      const prior = priorFlowsOf(ctx, year, OPERATING).net;
      const twoYears = prior?.isNegative() ?? false;
      return [
        riskItem(NEGATIVE_OPERATING_CASH_RULE, twoYears ? 'danger' : 'warning', {
          year: String(year),
          value: wanText(net),
          streak: twoYears && prior ? `，且${year - 1}年同样为负（${wanText(prior)}），已连续两年为负` : '',
        }),
      ];
    });
  },
};

const missingRule = cashFlowMissingRule(SLUG, '经营活动现金流指标');

export const operatingActivitiesModule = defineIndicatorModuleWithRules(
  {
    slug: SLUG,
    label: '经营活动现金流分析',
    section: 'cash_flow_analysis',
    description: '经营活动现金流入、流出、净额及其增长率，主要明细项目，收现比与净现比。',
    metrics: [
      ...flowMetrics(OPERATING),
      cashLineMetric('sales_cash', '销售商品、提供劳务收到的现金'),
      cashLineMetric('purchase_cash', '购买商品、接受劳务支付的现金'),
      cashLineMetric('salary_paid', '支付给职工以及为职工支付的现金'),
      cashLineMetric('tax_paid', '支付的各项税费'),
      {
        key: 'sales_cash_to_revenue',
        label: '收现比',
        unit: '%',
        formula: '销售商品、提供劳务收到的现金 ÷ 营业收入 × 100',
        inputs: ['cash_flow.sales_cash', 'income.revenue'],
        // Cash received includes output VAT, so a healthy ratio sits around 100–113%.
        note: '收到的现金含增值税销项税额，正常水平约为100%以上；营业收入为零或缺失时为空。',
        compute: (ctx, year) =>
          pct(ctx.line(year, 'cash_flow', 'sales_cash'), ctx.line(year, 'income', 'revenue')),
      },
      {
        key: 'net_cash_to_net_profit',
        label: '净现比',
        unit: '倍',
        formula: '经营活动产生的现金流量净额 ÷ 净利润',
        inputs: [...sectionInputs(OPERATING, 'net'), 'income.net_profit'],
        note: '净利润为零、为负或缺失时为空（亏损时比值符号与含义相反）。',
        compute: operatingCashToProfit,
      },
    ],
    riskRules: [
      {
        code: `${SLUG}.net_cash_to_net_profit_low`,
        metric: 'net_cash_to_net_profit',
        kind: 'below',
        tiers: [{ level: 'warning', threshold: 0.5 }],
        description: '净利润为正而净现比低于0.5，利润的现金含量偏低。',
        message: '{year}年净现比为{value}，低于{threshold}，净利润中仅少部分转化为经营现金流，利润质量偏低。',
      },
    ],
  },
  [{ doc: missingRule, evaluate: (ctx) => cashFlowMissingItems(ctx, missingRule) }, negativeOperatingCash],
);
