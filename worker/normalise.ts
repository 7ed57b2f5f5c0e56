/**
 * Turns a validated submission into the `NormalisedReport` the engine computes from, plus the non-blocking
 * warnings returned as `validation_warnings`.
 *
 * Sign convention of the normalised report: the general_new (财会〔2019〕6号 附件2) one for every standard.
 * Impairment losses (信用减值损失, 资产减值损失) are negative and are ADDED in operating profit, like the other
 * `sign: 'signed'` lines of the catalogue. Lines whose catalogue entry lists the submission's standard in
 * `deductionIn` are negated here: general_old submits 资产减值损失 as a deduction with a loss positive.
 * Amounts otherwise stay the exact decimal strings the client sent (only a negative zero loses its sign).
 */

import type { ItemInput, SheetInput, SubmissionInput } from '../schema/submission.ts';
import { findLineItem } from './catalogue/lineItems.ts';
import type {
  AccountingStandard,
  LineAmounts,
  NormalisedReport,
  SheetLines,
  YearStatements,
} from './types.ts';
import { SHEET_TYPES } from './types.ts';

export interface ValidationWarning {
  code: string;
  path: string;
  message: string;
}

export const ANONYMOUS_ENTERPRISE_NAME = '匿名企业';

const ZERO = /^0+(\.0+)?$/;
const NEGATIVE_ZERO = /^-0+(\.0+)?$/;

/** "-0", "-0.00" → "0", "0.00"; everything else unchanged. */
function canonical(amount: string): string {
  return NEGATIVE_ZERO.test(amount) ? amount.slice(1) : amount;
}

/** Flips the sign of a canonical decimal string without going through a float; zero stays unsigned. */
function negate(amount: string): string {
  if (amount.startsWith('-')) return amount.slice(1);
  return ZERO.test(amount) ? amount : `-${amount}`;
}

function amountsOf(item: ItemInput): LineAmounts {
  const [current, previous] =
    'ending_balance' in item
      ? [item.ending_balance, item.beginning_balance]
      : [item.current_year_amount, item.last_year_amount];
  return { current: canonical(current), previous: previous == null ? null : canonical(previous) };
}

/** Keeps the catalogue lines of the submission's standard; every other item yields one warning. */
function normaliseSheet(
  sheet: SheetInput,
  standard: AccountingStandard,
  sheetPath: string,
  warnings: ValidationWarning[],
): SheetLines {
  const lines: SheetLines = {};
  sheet.items.forEach((item, k) => {
    const name = item.item_name;
    const path = `${sheetPath}.items[${k}].item_name`;
    const def = findLineItem(sheet.sheet_type, name);
    if (!def) {
      const elsewhere = SHEET_TYPES.filter(
        (other) => other !== sheet.sheet_type && findLineItem(other, name),
      );
      const hint = elsewhere.length > 0 ? ` (it is a ${elsewhere.join('/')} line)` : '';
      warnings.push({
        code: 'unrecognised_item',
        path,
        message: `item_name "${name}" is not a known ${sheet.sheet_type} line${hint}; it is left out of the analysis`,
      });
      return;
    }
    if (!def.standards.includes(standard)) {
      warnings.push({
        code: 'item_not_in_standard',
        path,
        message: `item_name "${name}" (${def.nameZh}) is not a line of the ${standard} ${sheet.sheet_type} statement; it is left out of the analysis`,
      });
      return;
    }
    const amounts = amountsOf(item);
    lines[name] = def.deductionIn?.includes(standard)
      ? {
          current: negate(amounts.current),
          previous: amounts.previous === null ? null : negate(amounts.previous),
        }
      : amounts;
  });
  return lines;
}

/**
 * Builds the engine's input from a submission that passed `validateSubmission`: years ascending, only the
 * catalogue lines of the submission's standard, signs in the general_new convention. Warnings name every item
 * left out and every year without a cash_flow sheet; their paths point into the submitted body.
 */
export function normaliseSubmission(input: SubmissionInput): {
  report: NormalisedReport;
  warnings: ValidationWarning[];
} {
  const standard = input.accounting_standard;
  const warnings: ValidationWarning[] = [];
  const years: YearStatements[] = [];
  const withoutCashFlow: { year: number; index: number }[] = [];

  input.years_data.forEach((yearInput, i) => {
    const sheets: YearStatements['sheets'] = {};
    yearInput.sheets.forEach((sheet, j) => {
      sheets[sheet.sheet_type] = normaliseSheet(sheet, standard, `years_data[${i}].sheets[${j}]`, warnings);
    });
    if (!sheets.cash_flow) withoutCashFlow.push({ year: yearInput.year, index: i });
    years.push({ year: yearInput.year, sheets });
  });
  years.sort((a, b) => a.year - b.year);
  withoutCashFlow.sort((a, b) => a.year - b.year);

  if (withoutCashFlow.length === input.years_data.length) {
    warnings.push({
      code: 'cash_flow_missing',
      path: 'years_data',
      message:
        `no year has a cash_flow sheet (${withoutCashFlow.map((entry) => entry.year).join(', ')}): ` +
        'the cash-flow analyses will be empty',
    });
  } else {
    for (const { year, index } of withoutCashFlow) {
      warnings.push({
        code: 'cash_flow_missing',
        path: `years_data[${index}].sheets`,
        message: `year ${year} has no cash_flow sheet: its cash-flow figures will be null in the analyses`,
      });
    }
  }

  const name = input.enterprise_name?.trim();
  return {
    report: {
      enterpriseName: name ? name : ANONYMOUS_ENTERPRISE_NAME,
      standard,
      enterpriseInfo: input.enterprise_info ? { ...input.enterprise_info } : null,
      years,
    },
    warnings,
  };
}
