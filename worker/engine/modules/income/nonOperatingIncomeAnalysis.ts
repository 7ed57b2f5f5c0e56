/**
 * 营业外收支分析: non-operating income and expenses, their net, its weight in total profit and two anomaly checks —
 * a profit that rests on non-operating items, and a sudden jump of non-operating income that is material against
 * revenue (a common sign of one-off gains dressing up the result).
 */
import { pct, sub, toWan } from '../../decimal.ts';
import { formatValue } from '../../indicator.ts';
import {
  amountAndChange,
  amountMetric,
  type CustomRiskRule,
  currentPeriod,
  defineModule,
  findTier,
  type PeriodFormula,
  pctOfAbs,
  periodMetric,
  raise,
} from './shared.ts';

const netOf: PeriodFormula = (p) => sub(p.income('non_operating_income'), p.income('non_operating_expenses'));

/** Net non-operating result ÷ |total profit| × 100: positive when it adds to profit, whatever the profit's sign. */
const netShareOf: PeriodFormula = (p) => pctOfAbs(netOf(p), p.income('total_profit'));

const NET_SHARE_HIGH: CustomRiskRule = {
  code: 'non_operating_income_analysis.net_share_high',
  tiers: [
    { level: 'danger', threshold: 50 },
    { level: 'warning', threshold: 20 },
  ],
  description: '营业外收支净额的绝对值超过利润总额绝对值的20%为警告，超过50%为危险。',
  message:
    '{year}年营业外收支净额为{net}，相当于利润总额（{total_profit}）绝对值的{share}，超过{threshold}%，利润对营业外收支依赖较大，盈利的可持续性存疑。',
  evaluate(ctx) {
    const year = ctx.latestYear;
    const p = currentPeriod(ctx, year);
    const net = netOf(p);
    const share = p.value(netShareOf);
    const totalProfit = p.income('total_profit');
    if (net === null || share === null || totalProfit === null) return [];
    const tier = findTier(NET_SHARE_HIGH.tiers, (t) => share.abs().greaterThan(t));
    if (!tier) return [];
    return [
      raise(NET_SHARE_HIGH, tier.level, {
        year: String(year),
        net: formatValue(toWan(net)!, '万元'),
        total_profit: formatValue(toWan(totalProfit)!, '万元'),
        share: formatValue(share.abs(), '%'),
        threshold: String(tier.threshold),
      }),
    ];
  },
};

const JUMP_GROWTH_THRESHOLD = 100;
const JUMP_REVENUE_SHARE_THRESHOLD = 1;

const INCOME_JUMP: CustomRiskRule = {
  code: 'non_operating_income_analysis.income_jump',
  tiers: [{ level: 'warning', threshold: JUMP_GROWTH_THRESHOLD }],
  description: `营业外收入同比增长超过${JUMP_GROWTH_THRESHOLD}%，且金额超过营业收入的${JUMP_REVENUE_SHARE_THRESHOLD}%。`,
  message:
    '{year}年营业外收入为{amount}，同比增长{growth}，超过{threshold}%，且相当于营业收入的{revenue_share}（超过{revenue_threshold}%），需关注偶发性收益的来源与可持续性。',
  evaluate(ctx) {
    const year = ctx.latestYear;
    const current = currentPeriod(ctx, year);
    const amount = current.income('non_operating_income');
    const growth = ctx.lineChangeRate(year, 'income', 'non_operating_income');
    const revenueShare = pct(amount, current.income('revenue'));
    if (amount === null || growth === null || revenueShare === null) return [];
    if (
      !growth.greaterThan(JUMP_GROWTH_THRESHOLD) ||
      !revenueShare.greaterThan(JUMP_REVENUE_SHARE_THRESHOLD)
    ) {
      return [];
    }
    return [
      raise(INCOME_JUMP, 'warning', {
        year: String(year),
        amount: formatValue(toWan(amount)!, '万元'),
        growth: formatValue(growth, '%'),
        threshold: String(JUMP_GROWTH_THRESHOLD),
        revenue_share: formatValue(revenueShare, '%'),
        revenue_threshold: String(JUMP_REVENUE_SHARE_THRESHOLD),
      }),
    ];
  },
};

export const nonOperatingIncomeAnalysisModule = defineModule({
  slug: 'non_operating_income_analysis',
  label: '营业外收支分析',
  section: 'income_statement_analysis',
  description:
    '营业外收入、营业外支出及其净额对利润总额的影响，并识别营业外收支异常（占利润比重过高、营业外收入异常增长）。',
  metrics: [
    ...amountAndChange('income.non_operating_income', { label: '营业外收入' }),
    ...amountAndChange('income.non_operating_expenses', { label: '营业外支出' }),
    periodMetric(
      {
        key: 'non_operating_net',
        label: '营业外收支净额',
        unit: '万元',
        formula: '(营业外收入 − 营业外支出) ÷ 10000',
        inputs: ['income.non_operating_income', 'income.non_operating_expenses'],
        note: '任一行缺失时为空。',
      },
      (p) => toWan(netOf(p)),
    ),
    amountMetric('income.total_profit', { label: '利润总额' }),
    periodMetric(
      {
        key: 'non_operating_net_share',
        label: '营业外收支净额占利润总额比例',
        unit: '%',
        formula: '(营业外收入 − 营业外支出) ÷ |利润总额| × 100',
        inputs: ['income.non_operating_income', 'income.non_operating_expenses', 'income.total_profit'],
        note: '以利润总额的绝对值为基数，正值表示增加利润；利润总额为零时为空。',
      },
      netShareOf,
    ),
    periodMetric(
      {
        key: 'non_operating_income_to_revenue',
        label: '营业外收入占营业收入比例',
        unit: '%',
        formula: '营业外收入 ÷ 营业收入 × 100',
        inputs: ['income.non_operating_income', 'income.revenue'],
      },
      (p) => pct(p.income('non_operating_income'), p.income('revenue')),
    ),
  ],
  customRules: [NET_SHARE_HIGH, INCOME_JUMP],
});
