/** The line-item catalogue: spec keys, standards per line, groups that add up, statement order. */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  findLineItem,
  LINE_ITEM_GROUPS,
  LINE_ITEMS,
  type LineItemDef,
  lineItemsFor,
} from '../../worker/catalogue/lineItems.ts';
import {
  ACCOUNTING_STANDARDS,
  type AccountingStandard,
  SHEET_TYPES,
  type SheetType,
} from '../../worker/types.ts';

// The spec's "main values", copied verbatim.
const SPEC_KEYS: Record<SheetType, string> = {
  income:
    'revenue, operating_cost, taxes_and_dues, sales_expenses, administrative_expenses, rd_expenses, financial_expenses, ' +
    'interest_expense, interest_income, other_income, investment_income, fair_value_change, credit_impairment, ' +
    'asset_impairment, asset_disposal_gain, operating_profit, non_operating_income, non_operating_expenses, ' +
    'total_profit, income_tax_expense, net_profit',
  balance:
    'cash_and_equivalents, financial_assets_held_for_trading, notes_receivable, accounts_receivable, prepayments, ' +
    'other_receivables, inventory, contract_assets, other_current_assets, total_current_assets, ' +
    'long_term_equity_investments, fixed_assets_net, construction_in_progress, intangible_assets, ' +
    'long_term_deferred_expenses, deferred_tax_assets, total_noncurrent_assets, total_assets, ' +
    'short_term_borrowings, notes_payable, accounts_payable, advance_receipts, contract_liabilities, ' +
    'employee_benefits_payable, taxes_payable, other_payables, total_current_liabilities, long_term_borrowings, ' +
    'deferred_tax_liabilities, total_noncurrent_liabilities, total_liabilities, ' +
    'paid_in_capital, capital_reserve, surplus_reserve, retained_earnings, total_shareholders_equity, ' +
    'total_liabilities_and_equity',
  cash_flow:
    'sales_cash, tax_refund, other_op_cash_in, op_cash_in_total, purchase_cash, salary_paid, tax_paid, ' +
    'other_op_cash_out, op_cash_out_total, net_cf_operating, invest_proceeds, invest_income, asset_disposal, ' +
    'invest_cash_in_total, asset_purchase, invest_payments, invest_cash_out_total, net_cf_investing, ' +
    'capital_received, borrowings_received, finance_cash_in_total, debt_repayment, dividends_interest_paid, ' +
    'finance_cash_out_total, net_cf_financing, net_increase_cash',
};

interface FixtureBody {
  accounting_standard: AccountingStandard;
  years_data: {
    year: number;
    sheets: { sheet_type: SheetType; items: Record<string, string>[] }[];
  }[];
}

const FIXTURE_DIR = new URL('../fixtures/', import.meta.url);
const FIXTURES = readdirSync(FIXTURE_DIR)
  .filter((file) => file.endsWith('.json'))
  .map((file) => ({
    file,
    body: JSON.parse(readFileSync(new URL(file, FIXTURE_DIR), 'utf8')) as FixtureBody,
  }));

function def(sheet: SheetType, key: string): LineItemDef {
  const found = findLineItem(sheet, key);
  if (!found) throw new Error(`${sheet}:${key} is not in the catalogue`);
  return found;
}

/** Exact decimal → integer millionths, so sums need no floats. */
function micros(amount: string): bigint {
  const negative = amount.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? amount.slice(1) : amount).split('.');
  const value = BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
  return negative ? -value : value;
}

/** Sum of the sheet's lines in `group`, deduction lines subtracted, breakdown lines never included. */
function groupSum(lines: Map<string, string>, sheet: SheetType, group: string): bigint {
  let sum = 0n;
  for (const [key, amount] of lines) {
    const line = def(sheet, key);
    if (line.group === group) sum += line.sign === 'deduction' ? -micros(amount) : micros(amount);
  }
  return sum;
}

describe('LINE_ITEMS', () => {
  it.each(SHEET_TYPES)('has every %s key the spec names, on that sheet', (sheet) => {
    const keys = SPEC_KEYS[sheet].split(', ');
    expect(keys.length).toBeGreaterThan(20);
    for (const key of keys) expect(findLineItem(sheet, key)?.sheet, key).toBe(sheet);
  });

  it('uses each key once across all sheets', () => {
    const keys = LINE_ITEMS.map((line) => line.key);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('gives every line a Chinese name, a group of its sheet and a non-empty set of known standards', () => {
    for (const line of LINE_ITEMS) {
      expect(line.nameZh, line.key).toMatch(/^[\u4e00-\u9fff（）、，]+$/u);
      expect(LINE_ITEM_GROUPS[line.sheet] as readonly string[], line.key).toContain(line.group);
      expect(line.standards.length, line.key).toBeGreaterThan(0);
      expect(new Set(line.standards).size, line.key).toBe(line.standards.length);
      for (const standard of line.standards) expect(ACCOUNTING_STANDARDS, line.key).toContain(standard);
      expect(line.key, line.key).toMatch(/^[a-z][a-z0-9_]*$/);
    }
  });

  it('uses the official Chinese line names', () => {
    expect(def('income', 'revenue').nameZh).toBe('营业收入');
    expect(def('income', 'taxes_and_dues').nameZh).toBe('税金及附加');
    expect(def('income', 'credit_impairment').nameZh).toBe('信用减值损失');
    expect(def('income', 'asset_impairment').nameZh).toBe('资产减值损失');
    expect(def('balance', 'cash_and_equivalents').nameZh).toBe('货币资金');
    expect(def('balance', 'fixed_assets_net').nameZh).toBe('固定资产');
    expect(def('cash_flow', 'net_cf_operating').nameZh).toBe('经营活动产生的现金流量净额');
  });

  it('has the rest of the official formats beyond the spec keys', () => {
    const extra: [SheetType, string][] = [
      ['income', 'basic_eps'],
      ['income', 'diluted_eps'],
      ['income', 'oci_net_of_tax'],
      ['income', 'oci_fx_translation_difference'],
      ['income', 'total_comprehensive_income'],
      ['income', 'continuing_ops_net_profit'],
      ['income', 'discontinued_ops_net_profit'],
      ['balance', 'goodwill'],
      ['balance', 'right_of_use_assets'],
      ['balance', 'lease_liabilities'],
      ['balance', 'bonds_payable'],
      ['balance', 'investment_property'],
      ['balance', 'development_expenditure'],
      ['balance', 'provisions'],
      ['balance', 'deferred_income'],
      ['balance', 'treasury_stock'],
      ['balance', 'other_equity_instruments'],
      ['balance', 'other_comprehensive_income_reserve'],
      ['balance', 'special_reserve'],
      ['balance', 'minority_interests'],
      ['balance', 'non_current_assets_due_within_1y'],
      ['balance', 'non_current_liabilities_due_within_1y'],
      ['balance', 'receivables_financing'],
      ['balance', 'debt_investments'],
      ['cash_flow', 'fx_effect_on_cash'],
      ['cash_flow', 'cash_beginning'],
      ['cash_flow', 'cash_ending'],
      ['cash_flow', 'subsidiaries_disposal_cash'],
      ['cash_flow', 'subsidiaries_acquisition_cash'],
      ['cash_flow', 'other_invest_cash_in'],
      ['cash_flow', 'other_finance_cash_out'],
    ];
    for (const [sheet, key] of extra) expect(findLineItem(sheet, key), key).toBeDefined();
  });

  it.each([
    ['income', 'credit_impairment', ['general_new']],
    ['income', 'net_exposure_hedging_gain', ['general_new']],
    ['balance', 'contract_assets', ['general_new']],
    ['balance', 'contract_liabilities', ['general_new']],
    ['balance', 'right_of_use_assets', ['general_new']],
    ['balance', 'lease_liabilities', ['general_new']],
    ['balance', 'receivables_financing', ['general_new']],
    ['balance', 'debt_investments', ['general_new']],
    ['balance', 'available_for_sale_financial_assets', ['general_old']],
    ['balance', 'held_to_maturity_investments', ['general_old']],
    ['balance', 'short_term_investments', ['small_enterprise']],
    ['balance', 'dividends_receivable', ['small_enterprise']],
    ['balance', 'interest_receivable', ['small_enterprise']],
    ['balance', 'interest_payable', ['small_enterprise']],
    ['balance', 'profit_payable', ['small_enterprise']],
    ['balance', 'fixed_assets_original_cost', ['small_enterprise']],
    ['balance', 'accumulated_depreciation', ['small_enterprise']],
    ['cash_flow', 'interest_paid', ['small_enterprise']],
    ['cash_flow', 'dividends_paid', ['small_enterprise']],
    ['income', 'asset_impairment', ['general_new', 'general_old']],
    ['income', 'rd_expenses', ['general_new', 'general_old']],
    ['income', 'revenue', ['small_enterprise', 'general_new', 'general_old']],
    ['balance', 'fixed_assets_net', ['small_enterprise', 'general_new', 'general_old']],
  ] as const)('%s %s belongs to exactly %j', (sheet, key, standards) => {
    expect([...def(sheet, key).standards].sort()).toEqual([...standards].sort());
  });

  it('leaves out of small_enterprise the lines its format lacks', () => {
    const absent: [SheetType, string][] = [
      ['income', 'rd_expenses'],
      ['income', 'other_income'],
      ['income', 'fair_value_change'],
      ['income', 'credit_impairment'],
      ['income', 'asset_impairment'],
      ['income', 'asset_disposal_gain'],
      ['income', 'oci_net_of_tax'],
      ['income', 'total_comprehensive_income'],
      ['income', 'basic_eps'],
      ['income', 'continuing_ops_net_profit'],
      ['balance', 'financial_assets_held_for_trading'],
      ['balance', 'contract_assets'],
      ['balance', 'contract_liabilities'],
      ['balance', 'goodwill'],
      ['balance', 'deferred_tax_assets'],
      ['balance', 'deferred_tax_liabilities'],
      ['balance', 'investment_property'],
      ['balance', 'provisions'],
      ['balance', 'treasury_stock'],
      ['balance', 'other_comprehensive_income_reserve'],
      ['balance', 'special_reserve'],
      ['cash_flow', 'tax_refund'],
      ['cash_flow', 'op_cash_in_total'],
      ['cash_flow', 'fx_effect_on_cash'],
      ['cash_flow', 'dividends_interest_paid'],
    ];
    for (const [sheet, key] of absent)
      expect(def(sheet, key).standards, key).not.toContain('small_enterprise');
  });

  it('records the impairment sign conventions: signed in general_new, a deduction in general_old', () => {
    expect(def('income', 'credit_impairment').sign).toBe('signed');
    expect(def('income', 'credit_impairment').deductionIn).toBeUndefined();
    const assetImpairment = def('income', 'asset_impairment');
    expect(assetImpairment.sign).toBe('signed');
    expect(assetImpairment.deductionIn).toEqual(['general_old']);
    expect(assetImpairment.note).toMatch(/general_old/);
    // No other line is negated by the normaliser.
    expect(LINE_ITEMS.filter((line) => line.deductionIn).map((line) => line.key)).toEqual([
      'asset_impairment',
    ]);
    expect(def('income', 'operating_cost').sign).toBe('deduction');
    expect(def('balance', 'treasury_stock').sign).toBe('deduction');
  });

  it('points every parent at a line of the same sheet that every child standard also has', () => {
    const withParent = LINE_ITEMS.filter((line) => line.parent);
    expect(withParent.length).toBeGreaterThan(10);
    for (const line of withParent) {
      const parent = def(line.sheet, line.parent!);
      for (const standard of line.standards) expect(parent.standards, line.key).toContain(standard);
    }
    for (const line of LINE_ITEMS.filter((entry) => entry.group === 'breakdown')) {
      expect(line.parent, line.key).toBeDefined();
    }
    expect(def('income', 'interest_expense').parent).toBe('financial_expenses');
  });

  it('is in statement order: balance, income, cash flow, each top to bottom', () => {
    const sheetOrder = LINE_ITEMS.map((line) => line.sheet).filter((sheet, i, all) => sheet !== all[i - 1]);
    expect(sheetOrder).toEqual(['balance', 'income', 'cash_flow']);
    const position = (key: string) => LINE_ITEMS.findIndex((line) => line.key === key);
    const chains = [
      [
        'cash_and_equivalents',
        'inventory',
        'total_current_assets',
        'fixed_assets_net',
        'total_noncurrent_assets',
      ],
      ['total_assets', 'short_term_borrowings', 'total_current_liabilities', 'long_term_borrowings'],
      ['total_liabilities', 'paid_in_capital', 'retained_earnings', 'total_shareholders_equity'],
      [
        'total_liabilities_and_equity',
        'revenue',
        'operating_cost',
        'financial_expenses',
        'investment_income',
      ],
      ['credit_impairment', 'asset_impairment', 'operating_profit', 'total_profit', 'net_profit'],
      ['oci_net_of_tax', 'total_comprehensive_income', 'basic_eps', 'sales_cash', 'net_cf_operating'],
      ['net_cf_investing', 'net_cf_financing', 'fx_effect_on_cash', 'net_increase_cash', 'cash_ending'],
    ];
    for (const chain of chains) {
      const positions = chain.map(position);
      expect(positions, chain.join(' < ')).toEqual([...positions].sort((a, b) => a - b));
      expect(positions).not.toContain(-1);
    }
  });

  it('is frozen', () => {
    expect(Object.isFrozen(LINE_ITEMS)).toBe(true);
    expect(Object.isFrozen(LINE_ITEMS[0])).toBe(true);
  });
});

describe('findLineItem and lineItemsFor', () => {
  it('finds a key only on its own sheet', () => {
    expect(findLineItem('income', 'revenue')?.nameZh).toBe('营业收入');
    expect(findLineItem('balance', 'revenue')).toBeUndefined();
    expect(findLineItem('income', 'no_such_line')).toBeUndefined();
  });

  it('lists the lines of one sheet and standard in statement order, as a fresh array', () => {
    const small = lineItemsFor('income', 'small_enterprise');
    expect(
      small.every((line) => line.sheet === 'income' && line.standards.includes('small_enterprise')),
    ).toBe(true);
    expect(small.map((line) => line.key)).not.toContain('credit_impairment');
    expect(small.map((line) => line.key)).toContain('government_grants');
    const allIncome = LINE_ITEMS.filter((line) => line.sheet === 'income');
    expect(small.map((line) => allIncome.indexOf(line))).toEqual(
      small.map((line) => allIncome.indexOf(line)).sort((a, b) => a - b),
    );
    expect(lineItemsFor('income', 'small_enterprise')).not.toBe(small);
    expect(lineItemsFor('cash_flow', 'general_new').map((line) => line.key)).toContain('op_cash_in_total');
  });
});

describe('catalogue against the fixtures', () => {
  it.each(FIXTURES)('$file uses only keys its standard has', ({ body }) => {
    for (const year of body.years_data) {
      for (const sheet of year.sheets) {
        const keys = new Set(
          lineItemsFor(sheet.sheet_type, body.accounting_standard).map((line) => line.key),
        );
        for (const item of sheet.items) expect(keys.has(item.item_name!), item.item_name).toBe(true);
      }
    }
  });

  // The fixtures' subtotals add up, so summing each group must give its *_total line.
  it.each(FIXTURES)('$file: detail groups sum to their subtotal groups', ({ body }) => {
    const pairs: [SheetType, string, string][] = [
      ['balance', 'current_assets', 'current_assets_total'],
      ['balance', 'noncurrent_assets', 'noncurrent_assets_total'],
      ['balance', 'current_liabilities', 'current_liabilities_total'],
      ['balance', 'noncurrent_liabilities', 'noncurrent_liabilities_total'],
      ['balance', 'equity', 'equity_total'],
      ['cash_flow', 'operating_in', 'operating_in_total'],
      ['cash_flow', 'operating_out', 'operating_out_total'],
      ['cash_flow', 'investing_in', 'investing_in_total'],
      ['cash_flow', 'financing_out', 'financing_out_total'],
    ];
    let checked = 0;
    for (const year of body.years_data) {
      for (const sheet of year.sheets) {
        const amountKey = sheet.sheet_type === 'balance' ? 'ending_balance' : 'current_year_amount';
        const lines = new Map(sheet.items.map((item) => [item.item_name!, item[amountKey]!]));
        for (const [pairSheet, detail, total] of pairs) {
          if (pairSheet !== sheet.sheet_type) continue;
          expect(groupSum(lines, pairSheet, detail), `${year.year} ${detail}`).toBe(
            groupSum(lines, pairSheet, total),
          );
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(0);
  });
});
