/**
 * Reads an amount cell the way an accountant wrote it: numbers, or text with thousands separators, currency
 * signs, full-width digits, negatives in parentheses or with a minus sign, and a lone dash for zero. The result
 * is an exact decimal string in yuan (the API's form), never a float.
 */
import { Decimal } from 'decimal.js';
import type { Cell } from './readFiles.ts';

export type AmountRead = { value: string | null; raw: string | null; error?: string };

const DASHES = /^[-—–－~～]+$/u;

/** A number cell as decimal text: at the decimals of its number format when exact there, else shortest. */
function numberText(value: number, decimals: number | null): string {
  const exact = new Decimal(value);
  if (decimals !== null && decimals <= 6) {
    const fixed = exact.toFixed(decimals);
    if (exact.minus(fixed).abs().lessThan('1e-7')) return fixed;
  }
  // Float noise of a formula's cached result (0.30000000000000004) is below any amount's precision.
  return exact.toDecimalPlaces(6).toString();
}

export function readAmount(cell: Cell | undefined): AmountRead {
  if (!cell || cell.kind === 'empty') return { value: null, raw: null };
  if (cell.kind === 'number') {
    if (!Number.isFinite(cell.value))
      return { value: null, raw: String(cell.value), error: 'not a finite number' };
    return { value: numberText(cell.value, cell.decimals), raw: String(cell.value) };
  }
  if (cell.kind === 'formula_without_result')
    return {
      value: null,
      raw: `=${cell.formula}`.slice(0, 80),
      error:
        'a formula without a saved value: formulas are never calculated here; open the file in Excel, WPS or LibreOffice and save it so the value is stored',
    };
  const raw = cell.text;
  let text = raw.normalize('NFKC').replace(/[\s,，¥￥$]|元$/gu, '');
  if (text === '') return { value: null, raw };
  if (DASHES.test(text)) return { value: '0', raw };
  let negative = false;
  const parenthesised = /^\((.*)\)$/u.exec(text);
  if (parenthesised) {
    negative = true;
    text = parenthesised[1]!;
  }
  if (/^[-−]/u.test(text)) {
    negative = !negative;
    text = text.slice(1);
  }
  if (!/^(?:\d+(?:\.\d*)?|\.\d+)$/u.test(text) || text.length > 30)
    return { value: null, raw, error: `“${raw.slice(0, 40)}” is not an amount` };
  const [whole = '0', fraction] = text.split('.');
  const digits = `${whole.replace(/^0+(?=\d)/u, '') || '0'}${fraction ? `.${fraction}` : ''}`;
  const isZero = /^0(?:\.0*)?$/u.test(digits);
  return { value: negative && !isZero ? `-${digits}` : digits, raw };
}
