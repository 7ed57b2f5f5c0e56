/**
 * 利润总额构成 (slug `gross_profit`, named by the API): how total profit splits into operating profit, investment
 * income and the non-operating result. Investment income is itself part of operating profit, so to avoid counting
 * it twice the parts are
 *
 *   营业利润（不含投资收益） = 营业利润 − 投资收益,  投资收益,  营业外收支净额 = 营业外收入 − 营业外支出,
 *
 * plus a remainder (利润总额 − the three parts; 0 on a consistent statement). Their shares of 利润总额 add up to
 * 100. The base is total profit with its sign, so the shares still add up to 100 in a loss year, where a part
 * that deepened the loss shows a positive share.
 */
import { type Num, num, pct, sub, toWan } from '../../decimal.ts';
import { defineIndicatorModule } from '../../indicator.ts';
import type { LineRef, MetricDef } from '../../module.ts';
import { type PeriodFormula, periodMetric } from './shared.ts';

/** A missing investment-income or non-operating line counts as 0 here: a part that did not occur. */
const orZero = (value: Num): Num => value ?? num(0);

/** The composition needs the statement's own subtotals; without both, every part is null. */
const withSubtotals =
  (formula: PeriodFormula): PeriodFormula =>
  (p) =>
    p.income('operating_profit') === null || p.income('total_profit') === null ? null : formula(p);

interface Part {
  key: string;
  label: string;
  formula: string;
  inputs: readonly LineRef[];
  amount: PeriodFormula;
}

const investmentIncome: PeriodFormula = (p) => orZero(p.income('investment_income'));

const nonOperatingNet: PeriodFormula = (p) =>
  sub(orZero(p.income('non_operating_income')), orZero(p.income('non_operating_expenses')));

const PARTS: readonly Part[] = [
  {
    key: 'operating_profit_excl_investment',
    label: '营业利润（不含投资收益）',
    formula: '营业利润 − 投资收益',
    inputs: ['income.operating_profit', 'income.investment_income'],
    amount: (p) => sub(p.income('operating_profit'), investmentIncome(p)),
  },
  {
    key: 'investment_income',
    label: '投资收益',
    formula: '投资收益',
    inputs: ['income.investment_income'],
    amount: investmentIncome,
  },
  {
    key: 'non_operating_net',
    label: '营业外收支净额',
    formula: '营业外收入 − 营业外支出',
    inputs: ['income.non_operating_income', 'income.non_operating_expenses'],
    amount: nonOperatingNet,
  },
  {
    key: 'other_profit_items',
    label: '其他（差额）',
    formula: '利润总额 − 营业利润 − 营业外收支净额',
    inputs: [
      'income.total_profit',
      'income.operating_profit',
      'income.non_operating_income',
      'income.non_operating_expenses',
    ],
    amount: (p) => sub(sub(p.income('total_profit'), p.income('operating_profit')), nonOperatingNet(p)),
  },
];

const ZERO_NOTE = '投资收益、营业外收入、营业外支出缺失时按零计；营业利润或利润总额缺失时为空。';

const amountMetric = (part: Part): MetricDef =>
  periodMetric(
    {
      key: part.key,
      label: part.label,
      unit: '万元',
      formula: `(${part.formula}) ÷ 10000`,
      inputs: part.inputs,
      note: part.key === 'other_profit_items' ? '报表各项勾稽一致时为0。' : ZERO_NOTE,
    },
    withSubtotals((p) => toWan(part.amount(p))),
  );

const shareMetric = (part: Part): MetricDef =>
  periodMetric(
    {
      key: `${part.key}_share`,
      label: `${part.label}占利润总额比重`,
      unit: '%',
      formula: `(${part.formula}) ÷ 利润总额 × 100`,
      inputs: [...part.inputs, 'income.total_profit'],
      note: '以利润总额（含符号）为基数，四项占比之和为100；利润总额为零或缺失时为空。',
    },
    withSubtotals((p) => pct(part.amount(p), p.income('total_profit'))),
  );

export const grossProfitModule = defineIndicatorModule({
  slug: 'gross_profit',
  label: '利润总额构成',
  section: 'income_statement_analysis',
  description:
    '利润总额中营业利润（不含投资收益）、投资收益、营业外收支净额及其他差额的金额与占比（投资收益从营业利润中剔除，避免重复计算）。',
  metrics: [
    periodMetric(
      {
        key: 'total_profit',
        label: '利润总额',
        unit: '万元',
        formula: '利润总额 ÷ 10000',
        inputs: ['income.total_profit'],
      },
      (p) => toWan(p.income('total_profit')),
    ),
    ...PARTS.map(amountMetric),
    ...PARTS.map(shareMetric),
  ],
});
