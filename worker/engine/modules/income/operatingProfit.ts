/**
 * 营业利润构成: the lines between gross profit and operating profit other than the period expenses — 税金及附加,
 * 其他收益, 投资收益, 公允价值变动收益, 信用减值损失, 资产减值损失, 资产处置收益 — and each one's effect on operating
 * profit. An effect is the line's contribution (税金及附加 negated, the signed lines as they stand: an impairment
 * loss is negative) as a percentage of |operating profit|, so its sign is the direction of the effect even when
 * operating profit is a loss.
 */
import { type Num, pct } from '../../decimal.ts';
import { defineIndicatorModule } from '../../indicator.ts';
import type { MetricDef } from '../../module.ts';
import { amountAndChange, amountMetric, type Period, pctOfAbs, periodMetric, sumPresent } from './shared.ts';

interface OperatingItem {
  key: string;
  label: string;
  /** 'deduction': listed under 减：, a positive amount reduces operating profit. */
  sign: 'deduction' | 'signed';
}

/** In statement order (财会〔2019〕6号). */
const OPERATING_ITEMS: readonly OperatingItem[] = [
  { key: 'taxes_and_dues', label: '税金及附加', sign: 'deduction' },
  { key: 'other_income', label: '其他收益', sign: 'signed' },
  { key: 'investment_income', label: '投资收益', sign: 'signed' },
  { key: 'fair_value_change', label: '公允价值变动收益', sign: 'signed' },
  { key: 'credit_impairment', label: '信用减值损失', sign: 'signed' },
  { key: 'asset_impairment', label: '资产减值损失', sign: 'signed' },
  { key: 'asset_disposal_gain', label: '资产处置收益', sign: 'signed' },
];

const contribution = (p: Period, item: OperatingItem): Num => {
  const amount = p.income(item.key);
  return item.sign === 'deduction' && amount !== null ? amount.negated() : amount;
};

const effectMetric = (item: OperatingItem): MetricDef =>
  periodMetric(
    {
      key: `${item.key}_effect`,
      label: `${item.label}对营业利润的影响`,
      unit: '%',
      formula:
        item.sign === 'deduction'
          ? `−${item.label} ÷ |营业利润| × 100`
          : `${item.label}（损失为负） ÷ |营业利润| × 100`,
      inputs: [`income.${item.key}`, 'income.operating_profit'],
      note: '正值增加营业利润，负值减少营业利润。营业利润为零或该行缺失时为空。',
    },
    (p) => pctOfAbs(contribution(p, item), p.income('operating_profit')),
  );

/** Net impairment loss (positive = loss): −(信用减值损失 + 资产减值损失), a missing line counting as 0. */
const impairmentLoss = (p: Period): Num => {
  const total = sumPresent([p.income('credit_impairment'), p.income('asset_impairment')]);
  return total === null ? null : total.negated();
};

/** A ratio to operating profit that only means something while operating profit is positive. */
const toPositiveOperatingProfit = (value: Num, p: Period): Num => {
  const operatingProfit = p.income('operating_profit');
  return operatingProfit?.greaterThan(0) ? pct(value, operatingProfit) : null;
};

export const operatingProfitModule = defineIndicatorModule({
  slug: 'operating_profit',
  label: '营业利润构成',
  section: 'income_statement_analysis',
  description:
    '税金及附加、其他收益、投资收益、公允价值变动收益、信用减值损失、资产减值损失、资产处置收益的金额及其对营业利润的影响，' +
    '并评估减值损失与投资类收益对营业利润的影响程度。',
  metrics: [
    ...amountAndChange('income.operating_profit', { label: '营业利润' }),
    ...OPERATING_ITEMS.map((item) => amountMetric(`income.${item.key}`, { label: item.label })),
    ...OPERATING_ITEMS.map(effectMetric),
    periodMetric(
      {
        key: 'impairment_loss_ratio',
        label: '减值损失占营业利润比例',
        unit: '%',
        formula: '−(信用减值损失 + 资产减值损失) ÷ 营业利润 × 100',
        inputs: ['income.credit_impairment', 'income.asset_impairment', 'income.operating_profit'],
        note: '缺失的减值行按零计，两行均缺失（如小企业）时为空；营业利润小于或等于零时为空。净转回时为负。',
      },
      (p) => toPositiveOperatingProfit(impairmentLoss(p), p),
    ),
    periodMetric(
      {
        key: 'investment_dependence',
        label: '投资及公允价值变动收益占营业利润比例',
        unit: '%',
        formula: '(投资收益 + 公允价值变动收益) ÷ 营业利润 × 100',
        inputs: ['income.investment_income', 'income.fair_value_change', 'income.operating_profit'],
        note: '缺失的行按零计，两行均缺失时为空；营业利润小于或等于零时为空。',
      },
      (p) =>
        toPositiveOperatingProfit(
          sumPresent([p.income('investment_income'), p.income('fair_value_change')]),
          p,
        ),
    ),
  ],
  riskRules: [
    {
      code: 'operating_profit.impairment_loss_high',
      metric: 'impairment_loss_ratio',
      kind: 'above',
      tiers: [{ level: 'warning', threshold: 20 }],
      description: '信用减值损失与资产减值损失合计超过营业利润的20%。',
      message:
        '{year}年减值损失（信用减值与资产减值合计）相当于营业利润的{value}，超过{threshold}，资产质量对利润的侵蚀较大。',
    },
    {
      code: 'operating_profit.investment_dependence_high',
      metric: 'investment_dependence',
      kind: 'above',
      tiers: [{ level: 'warning', threshold: 50 }],
      description: '投资收益与公允价值变动收益合计超过营业利润的50%。',
      message:
        '{year}年投资收益与公允价值变动收益合计占营业利润的{value}，超过{threshold}，营业利润对投资类收益依赖较大，主营盈利能力偏弱。',
    },
  ],
});
