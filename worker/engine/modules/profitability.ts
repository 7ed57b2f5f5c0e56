/** 盈利能力分析: margins, returns on average equity and assets, and the SASAC cost-expense profit margin. */
import type { ReportContext } from '../context.ts';
import { add, pct, sum } from '../decimal.ts';
import { defineIndicatorModule, sharedCompute } from '../indicator.ts';
import { currentPeriod, grossMarginOf } from './income/shared.ts';

/** Expense lines added to operating cost in 成本费用总额; each counts as 0 when absent. */
const COST_EXPENSE_LINES = [
  'taxes_and_dues',
  'sales_expenses',
  'administrative_expenses',
  'rd_expenses',
  'financial_expenses',
] as const;

const income = (ctx: ReportContext, year: number, key: string) => ctx.line(year, 'income', key);

export const profitabilityModule = defineIndicatorModule({
  slug: 'profitability',
  label: '盈利能力分析',
  section: 'comprehensive_analysis',
  description:
    '毛利率、净利率、净资产收益率、总资产收益率（合并口径，及提交归母项目时的归母口径）与成本费用利润率。',
  metrics: [
    {
      key: 'gross_margin',
      label: '毛利率',
      unit: '%',
      formula: '(营业收入 − 营业成本) ÷ 营业收入 × 100',
      inputs: ['income.revenue', 'income.operating_cost'],
      // The same formula, memoised per period, as the gross-margin changes of the income-statement modules.
      compute: (ctx, year) => currentPeriod(ctx, year).value(grossMarginOf),
    },
    {
      key: 'net_margin',
      label: '净利率',
      unit: '%',
      formula: '净利润 ÷ 营业收入 × 100',
      inputs: ['income.net_profit', 'income.revenue'],
      compute: sharedCompute((ctx, year) =>
        pct(income(ctx, year, 'net_profit'), income(ctx, year, 'revenue')),
      ),
    },
    {
      key: 'roe',
      label: '净资产收益率',
      unit: '%',
      formula: '净利润 ÷ ((年初所有者权益合计 + 年末所有者权益合计) ÷ 2) × 100',
      inputs: ['income.net_profit', 'balance.total_shareholders_equity'],
      // With zero or negative average equity the quotient has no meaning (a loss over negative equity would
      // read as a positive return), so ROE is not reported; the negative equity itself is raised as a danger
      // by long_term_liability.
      note: '平均所有者权益小于或等于零时为空（负权益下的收益率无经济含义）。',
      compute: sharedCompute((ctx, year) => {
        const equity = ctx.averageBalance(year, 'total_shareholders_equity');
        if (equity === null || equity.lessThanOrEqualTo(0)) return null;
        return pct(income(ctx, year, 'net_profit'), equity);
      }),
    },
    {
      key: 'roa',
      label: '总资产收益率',
      unit: '%',
      formula: '净利润 ÷ ((年初资产总计 + 年末资产总计) ÷ 2) × 100',
      inputs: ['income.net_profit', 'balance.total_assets'],
      compute: (ctx, year) => pct(income(ctx, year, 'net_profit'), ctx.averageBalance(year, 'total_assets')),
    },
    {
      key: 'roe_parent',
      label: '净资产收益率（归属于母公司）',
      unit: '%',
      formula:
        '归属于母公司所有者的净利润 ÷ ((年初归属于母公司所有者权益 + 年末归属于母公司所有者权益) ÷ 2) × 100',
      inputs: ['income.net_profit_attributable_to_parent', 'balance.equity_attributable_to_parent'],
      note: '未提交归母项目时为空；平均归母权益小于或等于零时为空。与数据终端口径一致：etnet、同花顺iFinD 的 ROE 为归母净利润 ÷ 平均归母权益（东方财富的“加权净资产收益率”按加权平均净资产计算，另有差异）；roe 为合并口径（净利润 ÷ 平均所有者权益合计）。',
      compute: sharedCompute((ctx, year) => {
        const equity = ctx.averageBalance(year, 'equity_attributable_to_parent');
        if (equity === null || equity.lessThanOrEqualTo(0)) return null;
        return pct(income(ctx, year, 'net_profit_attributable_to_parent'), equity);
      }),
    },
    {
      key: 'roa_parent',
      label: '总资产收益率（归属于母公司净利润）',
      unit: '%',
      formula: '归属于母公司所有者的净利润 ÷ ((年初资产总计 + 年末资产总计) ÷ 2) × 100',
      inputs: ['income.net_profit_attributable_to_parent', 'balance.total_assets'],
      note: '未提交归母净利润时为空。etnet 的 ROA 即此口径（归母净利润 ÷ 平均总资产）；roa 为合并净利润口径。',
      compute: sharedCompute((ctx, year) =>
        pct(income(ctx, year, 'net_profit_attributable_to_parent'), ctx.averageBalance(year, 'total_assets')),
      ),
    },
    {
      key: 'cost_expense_profit_margin',
      label: '成本费用利润率',
      unit: '%',
      formula: '利润总额 ÷ (营业成本 + 税金及附加 + 销售费用 + 管理费用 + 研发费用 + 财务费用) × 100',
      inputs: [
        'income.total_profit',
        'income.operating_cost',
        ...COST_EXPENSE_LINES.map((key) => `income.${key}` as const),
      ],
      note: '国资委绩效评价口径。营业成本与利润总额必需；缺失的费用行按零计。',
      compute: sharedCompute((ctx, year) => {
        const expenses = sum(
          COST_EXPENSE_LINES.map((key) => income(ctx, year, key)),
          { missingAsZero: true },
        );
        return pct(income(ctx, year, 'total_profit'), add(income(ctx, year, 'operating_cost'), expenses));
      }),
    },
  ],
  // A loss is one fact: net_profit.net_loss raises it (per year); a negative net margin is the same fact.
  riskRules: [],
});
