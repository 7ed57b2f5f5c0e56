/**
 * Exact decimal arithmetic for the indicator engine.
 *
 * Every intermediate value is a `Decimal` (or null when an input is missing or a denominator is zero);
 * nulls propagate through the helpers. Rounding happens once, in `round2`, when a value leaves the engine.
 */
import { Decimal } from 'decimal.js';

/**
 * A private Decimal constructor: 40 significant digits keep divisions of 20-digit yuan amounts exact far beyond
 * the 2 decimals we output, and it leaves the global `Decimal` configuration of other code untouched.
 */
export const Dec = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });

export type Num = Decimal | null;

const HUNDRED = new Dec(100);
const TEN_THOUSAND = new Dec(10_000);

/** Parses a yuan amount string; null for null, empty, malformed or non-finite input. */
export function parseAmount(value: string | null | undefined): Num {
  if (value === null || value === undefined || value.trim() === '') return null;
  try {
    const d = new Dec(value.trim());
    return d.isFinite() ? d : null;
  } catch {
    return null;
  }
}

/** A constant as a Decimal (thresholds, 360 days, …). */
export function num(value: number | string): Decimal {
  return new Dec(value);
}

export function add(a: Num, b: Num): Num {
  return a === null || b === null ? null : a.plus(b);
}

export function sub(a: Num, b: Num): Num {
  return a === null || b === null ? null : a.minus(b);
}

export function mul(a: Num, b: Num): Num {
  return a === null || b === null ? null : a.times(b);
}

/** a / b; null when either is missing or b is zero. */
export function ratio(a: Num, b: Num): Num {
  if (a === null || b === null || b.isZero()) return null;
  return a.dividedBy(b);
}

/** a / b × 100 (a percentage, already multiplied by 100). */
export function pct(a: Num, b: Num): Num {
  return mul(ratio(a, b), HUNDRED);
}

/** Yuan → 万元 (ten-thousand yuan). */
export function toWan(a: Num): Num {
  return a === null ? null : a.dividedBy(TEN_THOUSAND);
}

/**
 * Sum of the values. With `missingAsZero` a missing value counts as 0 (e.g. an absent expense line);
 * otherwise any missing value makes the sum missing.
 */
export function sum(values: readonly Num[], options: { missingAsZero?: boolean } = {}): Num {
  let total = new Dec(0);
  for (const v of values) {
    if (v === null) {
      if (options.missingAsZero) continue;
      return null;
    }
    total = total.plus(v);
  }
  return total;
}

/** (beginning + ending) / 2. */
export function average(beginning: Num, ending: Num): Num {
  const s = add(beginning, ending);
  return s === null ? null : s.dividedBy(2);
}

/**
 * Change rate in percent: (current − base) / |base| × 100. The absolute base keeps the sign meaningful when the
 * base is negative (a loss shrinking is an increase). Null when the base is zero or either value is missing.
 */
export function changeRate(current: Num, base: Num): Num {
  if (current === null || base === null || base.isZero()) return null;
  return current.minus(base).dividedBy(base.abs()).times(HUNDRED);
}

/** Difference of two percentages, in percentage points. */
export function ppChange(current: Num, previous: Num): Num {
  return sub(current, previous);
}

/**
 * The only rounding in the engine: half-up (away from zero at .5, 四舍五入) to 2 decimals, as a JS number.
 * Null for a missing or non-finite value, so neither NaN nor Infinity can leave the engine; −0 becomes 0.
 */
export function round2(value: Num): number | null {
  if (value === null || !value.isFinite()) return null;
  const n = value.toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toNumber();
  if (!Number.isFinite(n)) return null;
  return n === 0 ? 0 : n;
}

/** Fixed 2-decimal text of a value for messages (`1234.50`), rounded like `round2`. */
export function format2(value: Decimal): string {
  const s = value.toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2);
  return s === '-0.00' ? '0.00' : s;
}
