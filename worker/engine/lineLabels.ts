/**
 * Chinese names of the balance-sheet lines the engine reports on, in statement order (the spec's main
 * item_name values). Local to the engine so it does not depend on the submission catalogue.
 */
import { findLineItem } from '../catalogue/lineItems.ts';

const BALANCE_LINE_LABELS: Readonly<Record<string, string>> = {
  cash_and_equivalents: '货币资金',
  financial_assets_held_for_trading: '交易性金融资产',
  notes_receivable: '应收票据',
  accounts_receivable: '应收账款',
  prepayments: '预付款项',
  other_receivables: '其他应收款',
  inventory: '存货',
  contract_assets: '合同资产',
  other_current_assets: '其他流动资产',
  total_current_assets: '流动资产合计',
  long_term_equity_investments: '长期股权投资',
  fixed_assets_net: '固定资产',
  construction_in_progress: '在建工程',
  intangible_assets: '无形资产',
  long_term_deferred_expenses: '长期待摊费用',
  deferred_tax_assets: '递延所得税资产',
  total_noncurrent_assets: '非流动资产合计',
  total_assets: '资产总计',
  short_term_borrowings: '短期借款',
  notes_payable: '应付票据',
  accounts_payable: '应付账款',
  advance_receipts: '预收款项',
  contract_liabilities: '合同负债',
  employee_benefits_payable: '应付职工薪酬',
  taxes_payable: '应交税费',
  other_payables: '其他应付款',
  total_current_liabilities: '流动负债合计',
  long_term_borrowings: '长期借款',
  deferred_tax_liabilities: '递延所得税负债',
  total_noncurrent_liabilities: '非流动负债合计',
  total_liabilities: '负债合计',
  paid_in_capital: '实收资本（或股本）',
  capital_reserve: '资本公积',
  surplus_reserve: '盈余公积',
  retained_earnings: '未分配利润',
  total_shareholders_equity: '所有者权益合计',
  total_liabilities_and_equity: '负债和所有者权益总计',
};

const BALANCE_LINE_ORDER = new Map(Object.keys(BALANCE_LINE_LABELS).map((key, i) => [key, i]));

/** Chinese name of a balance-sheet line; an unknown key is returned unchanged. */
export function balanceLineLabel(key: string): string {
  return BALANCE_LINE_LABELS[key] ?? findLineItem('balance', key)?.nameZh ?? key;
}

/** Sorts balance keys into statement order; keys without a known position follow, alphabetically. */
export function sortBalanceKeys(keys: Iterable<string>): string[] {
  const rank = (key: string) => BALANCE_LINE_ORDER.get(key) ?? Number.MAX_SAFE_INTEGER;
  return [...keys].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}
