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

/*
 * Performance only, no effect on any value: `Decimal.clone` hangs some 70 static properties on the new constructor,
 * which makes V8 keep it as a slow dictionary-mode object, so the reads of `Ctor.precision`, `Ctor.rounding`,
 * `Ctor.maxE`, … that decimal.js makes in every operation go through V8's generic property lookup. V8 turns an
 * object that serves as a prototype back into a fast one: giving `Dec` that role once saves several percent of the
 * engine's time.
 */
Object.create(Dec);

export type Num = Decimal | null;

const ZERO = new Dec(0);
const HUNDRED = new Dec(100);
/**
 * Exact reciprocals for the constant divisors: x × 0.0001 and x × 0.5 are the same exact values as x ÷ 10000 and
 * x ÷ 2, and `times` and `dividedBy` both round that exact value once to the precision, so the results are
 * identical — a multiplication is just several times cheaper than a division.
 */
const ONE_TEN_THOUSANDTH = new Dec('0.0001');
const ONE_HUNDREDTH = new Dec('0.01');
const HALF = new Dec('0.5');

/** Parses a yuan amount string; null for null, empty, malformed or non-finite input. */
export function parseAmount(value: string | null | undefined): Num {
  if (value === null || value === undefined) return null;
  const plain = parsePlainDecimal(value);
  if (plain !== undefined) return plain;
  if (value.trim() === '') return null;
  try {
    const d = new Dec(value.trim());
    return d.isFinite() ? d : null;
  } catch {
    return null;
  }
}

/** The longest text parsePlainDecimal reads itself. */
const MAX_PLAIN = 60;

/**
 * The Decimal `new Dec(value)` makes of a plain decimal text — an optional minus, digits, and optionally a point
 * and more digits, at least one digit in all, at most 60 characters: every amount the submission schema lets
 * through — read straight into digit words (≈ 0.15 µs against ≈ 0.8 µs: amounts are read once per line and
 * column of every year, a twentieth of the engine's time). Undefined for anything else (spaces, exponents, a plus,
 * zero), which decimal.js reads. Like decimal.js's own parse it keeps every digit: a Decimal is not rounded to the
 * precision until arithmetic. test/unit/engineDecimal.test.ts compares the two.
 */
function parsePlainDecimal(value: string): Decimal | undefined {
  const length = value.length;
  if (length === 0 || length > MAX_PLAIN) return undefined;
  let i = value.charCodeAt(0) === 45 ? 1 : 0;
  const sign = i === 1 ? -1 : 1;
  const intStart = i;
  while (i < length && isDigit(value.charCodeAt(i))) i++;
  const intEnd = i;
  let fracEnd = intEnd;
  if (i < length) {
    if (value.charCodeAt(i) !== 46) return undefined;
    i++;
    while (i < length && isDigit(value.charCodeAt(i))) i++;
    if (i < length) return undefined;
    fracEnd = i;
  }
  if (intEnd === intStart && fracEnd <= intEnd + 1) return undefined;
  // The significant digits: from the first non-zero to the last non-zero, across the point.
  let first = intStart;
  while (first < fracEnd && (value.charCodeAt(first) === 48 || first === intEnd)) first++;
  if (first === fracEnd) return undefined;
  let end = fracEnd;
  while (value.charCodeAt(end - 1) === 48 || end - 1 === intEnd) end--;
  const e = first < intEnd ? intEnd - first - 1 : intEnd - first;
  return decimalOf(sign, e, digitWords(value, first, end, leadDigits(e), intEnd));
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/**
 * Constants already made (a Decimal is immutable: sharing one is safe). Rules compare against the same thresholds
 * for every line and year, and building a Decimal from a fractional number goes through its text. Bounded, so
 * a caller passing computed values cannot grow it without end; -0 is never looked up (a Map does not tell it from
 * 0).
 */
const CONSTANTS = new Map<number | string, Decimal>();
const MAX_CONSTANTS = 4096;

/** A constant as a Decimal (thresholds, 360 days, …). */
export function num(value: number | string): Decimal {
  if (Object.is(value, -0)) return new Dec(value);
  let decimal = CONSTANTS.get(value);
  if (decimal === undefined) {
    decimal = new Dec(value);
    if (CONSTANTS.size < MAX_CONSTANTS) CONSTANTS.set(value, decimal);
  }
  return decimal;
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

/** 10^0 … 10^100 as BigInts. */
const BIG_POWERS_OF_TEN = Array.from({ length: 101 }, (_, n) => 10n ** BigInt(n));
const WORDS_2 = 10n ** 14n;
const DECIMAL_PROTOTYPE: object = Dec.prototype;
/** The most digit words of an operand `divide` takes (56 digits); longer ones go to decimal.js. */
const MAX_WORDS = 8;

/** The number of decimal digits of a digit word (1 … 9,999,999). */
function wordDigits(word: number): number {
  return word < 1e4
    ? word < 100
      ? word < 10
        ? 1
        : 2
      : word < 1e3
        ? 3
        : 4
    : word < 1e6
      ? word < 1e5
        ? 5
        : 6
      : 7;
}

/** The integer whose digits are a Decimal's digit words, written one after another. */
function coefficient(words: readonly number[]): bigint {
  // Two words at a time where it can: a Number below 10^14 is exact, and half the BigInt operations.
  const odd = words.length % 2;
  let c = BigInt(odd ? words[0]! : words[0]! * 1e7 + words[1]!);
  for (let i = odd ? 1 : 2; i < words.length; i += 2)
    c = c * WORDS_2 + BigInt(words[i]! * 1e7 + words[i + 1]!);
  return c;
}

/**
 * a ÷ b, the same Decimal as `a.dividedBy(b)` — decimal.js's quotient correctly rounded half-up to `Dec`'s 40
 * significant digits — from one BigInt division instead of decimal.js's long division in base 10^7 (≈ 1 µs
 * against ≈ 3.5 µs; divisions were a quarter of the engine's time). b must not be zero.
 *
 * Why it is the same value: |a| = A × 10^x and |b| = B × 10^y with A and B the integers of their digit words
 * (na and nb digits). Q = ⌊A × 10^k ÷ B⌋ with k = 41 − na + nb (at least 0) has 41 or 42 digits, all exact digits of
 * |a ÷ b| = (A × 10^k ÷ B) × 10^(x − y − k). Rounding half-up to 40 digits looks only at the digits dropped: they
 * are at least one half of the last kept digit exactly when Q's own dropped digits are (what lies below Q, the
 * division's remainder, is less than one unit of Q's last digit, so it cannot lift a dropped part below one half
 * to it — units of Q are integers and one half of a power of ten ≥ 10 is an integer too). The result is then
 * written as decimal.js writes every value (see roundedCents): words aligned on multiples of 7 in the exponent,
 * the last word's unused digits zero, no trailing zero words. Zero, non-finite and over-long operands are
 * decimal.js's own. test/unit/engineDecimal.test.ts compares the two on random and edge operands.
 */
export function divide(a: Decimal, b: Decimal): Decimal {
  return divideScaled(a, b, 0) ?? a.dividedBy(b);
}

/**
 * (a × 10^scale) ÷ b as `divide` computes it, scale ≥ 0: the same Decimal as a.times(10^scale).dividedBy(b) for any
 * `a` of at most 40 significant digits (for which a × 10^scale is exact: the same digits, `scale` places higher) —
 * the multiplication is only the exponent's. Undefined where decimal.js must answer (see `divide`), and for a
 * longer `a`, which times() would round first.
 */
function divideScaled(a: Decimal, b: Decimal, scale: number): Decimal | undefined {
  const ad = a.d;
  const bd = b.d;
  if (!ad || !bd || ad[0] === 0 || bd[0] === 0 || ad.length > MAX_WORDS || bd.length > MAX_WORDS)
    return undefined;
  const na = wordDigits(ad[0]!) + 7 * (ad.length - 1);
  if (scale > 0 && na > 40) return undefined;
  const nb = wordDigits(bd[0]!) + 7 * (bd.length - 1);
  const k = Math.max(0, 41 - na + nb);
  // Q's digits: 41 or 42 of them.
  const text = ((coefficient(ad) * BIG_POWERS_OF_TEN[k]!) / coefficient(bd)).toString();
  // The exponent of the quotient's leading digit: |a ÷ b| = Q × 10^(x − y − k), x = a.e − na + 1, y = b.e − nb + 1.
  let e = text.length - 1 + (a.e - na + 1) - (b.e - nb + 1) - k + scale;
  // Q's first 40 digits as digit words.
  const lead = leadDigits(e);
  let words = digitWords(text, 0, 40, lead);
  // One unit of the 40th digit, in the last word (its unused digits are zeros).
  const last = 10 ** ((7 - ((40 - lead) % 7)) % 7);
  // Half-up: one more in the 40th digit when the 41st is 5 or more, carried through the words.
  if (text.charCodeAt(40) >= 53) {
    let i = words.length - 1;
    words[i] = words[i]! + last;
    while (i > 0 && words[i]! >= 1e7) {
      words[i] = words[i]! - 1e7;
      i--;
      words[i] = words[i]! + 1;
    }
    // Every digit was a 9: the quotient rounds up to the next power of ten.
    if (words[0]! >= 10 ** lead) {
      e++;
      words = [10 ** (leadDigits(e) - 1)];
    }
  }
  while (words[words.length - 1] === 0) words.pop();
  return decimalOf(a.s * b.s, e, words);
}

/** How many digits the leading digit word of a value whose leading digit is at 10^e holds (1 … 7). */
function leadDigits(e: number): number {
  return e - 7 * Math.floor(e / 7) + 1;
}

/**
 * The digit words of the digits text[from … to) (character codes 48–57; the character at `skip`, a decimal point,
 * left out), the first at 10^e, as decimal.js writes
 * them: words aligned on multiples of 7 in the exponent — the leading word holds `lead` digits (leadDigits(e)),
 * each further word 7 — and the last word's unused digits zero. Trailing zero words are the caller's to drop.
 */
function digitWords(text: string, from: number, to: number, lead: number, skip = -1): number[] {
  const words: number[] = [];
  let word = 0;
  let count = 0;
  let size = lead;
  for (let i = from; i < to; i++) {
    if (i === skip) continue;
    word = word * 10 + text.charCodeAt(i) - 48;
    if (++count === size) {
      words.push(word);
      word = 0;
      count = 0;
      size = 7;
    }
  }
  if (count > 0) words.push(word * 10 ** (size - count));
  return words;
}

/** A Decimal of sign s, exponent e and digit words d, as decimal.js's constructor makes one from another. */
function decimalOf(s: number, e: number, d: number[]): Decimal {
  // The same own properties, in the same order: V8 gives it the same shape as every other Decimal.
  const value = Object.create(DECIMAL_PROTOTYPE) as {
    constructor: unknown;
    s: number;
    e: number;
    d: number[];
  };
  value.constructor = Dec;
  value.s = s;
  value.e = e;
  value.d = d;
  return value as unknown as Decimal;
}

/** a / b; null when either is missing or b is zero. */
export function ratio(a: Num, b: Num): Num {
  if (a === null || b === null || b.isZero()) return null;
  return divide(a, b);
}

/**
 * a / b × 100 (a percentage, already multiplied by 100), computed as (a × 100) / b: the same value as
 * (a / b) × 100, with the short ×100 ahead of the division instead of on its 40-digit quotient. Exact: a has at
 * most 40 significant digits (an amount has at most 24 under the submission schema's limits, a computed value is
 * rounded to 40), so a × 100 is exact, and rounding (a × 100) / b to 40 significant digits gives the digits of
 * a / b rounded to 40 — a power of ten only moves the decimal point, so both round at the same digit.
 */
export function pct(a: Num, b: Num): Num {
  if (a === null || b === null || b.isZero()) return null;
  return divideScaled(a, b, 2) ?? a.times(HUNDRED).dividedBy(b);
}

/**
 * `pct(·, base)` for several values over one base. a ÷ (base × 0.01) is the same exact quotient as (a × 100) ÷ base
 * — base × 0.01 only moves the decimal point of a base of at most 40 digits — so it rounds to the same result, and
 * one multiplication serves all the values instead of one each.
 */
export function pctOver(base: Num): (a: Num) => Num {
  if (base === null || base.isZero()) return () => null;
  const hundredth = base.times(ONE_HUNDREDTH);
  return (a) => (a === null ? null : divide(a, hundredth));
}

/** Yuan → 万元 (ten-thousand yuan). */
export function toWan(a: Num): Num {
  return a === null ? null : (shifted(a, -4) ?? a.times(ONE_TEN_THOUSANDTH));
}

/**
 * a × 10^places as `times` computes it for a value of at most 40 significant digits, where the product is exact:
 * the same digits with the exponent moved, rewritten into words aligned for the new exponent (≈ 0.15 µs against
 * ≈ 0.7 µs for decimal.js's multiplication; toWan runs ≈ 550 times a report). Undefined for zero, non-finite and
 * longer values, which decimal.js multiplies (and rounds).
 */
function shifted(a: Decimal, places: number): Decimal | undefined {
  const words = a.d;
  if (!words || words[0] === 0 || words.length > 6) return undefined;
  let text = String(words[0]);
  for (let i = 1; i < words.length; i++) {
    const word = String(words[i]);
    text += '0000000'.slice(word.length) + word;
  }
  let end = text.length;
  while (text.charCodeAt(end - 1) === 48) end--;
  if (end > 40) return undefined;
  const e = a.e + places;
  return decimalOf(a.s, e, digitWords(text, 0, end, leadDigits(e)));
}

/**
 * Sum of the values. With `missingAsZero` a missing value counts as 0 (e.g. an absent expense line);
 * otherwise any missing value makes the sum missing.
 */
export function sum(values: readonly Num[], options: { missingAsZero?: boolean } = {}): Num {
  let total: Decimal = ZERO;
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
  return s === null ? null : s.times(HALF);
}

/**
 * Change rate in percent: (current − base) / |base| × 100. The absolute base keeps the sign meaningful when the
 * base is negative (a loss shrinking is an increase). Null when the base is zero or either value is missing.
 */
export function changeRate(current: Num, base: Num): Num {
  return rateOfChange(sub(current, base), base);
}

/** `changeRate` from the change (current − base) already computed: change / |base| × 100. */
export function rateOfChange(change: Num, base: Num): Num {
  if (change === null || base === null || base.isZero()) return null;
  // ×100 ahead of the division, exact as in `pct` (the change is a computed value: at most 40 digits).
  const divisor = base.isNegative() ? base.negated() : base;
  return divideScaled(change, divisor, 2) ?? change.times(HUNDRED).dividedBy(divisor);
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
  const cents = roundedCents(value, 2);
  if (cents !== null) return cents === 0 ? 0 : (value.s * cents) / 100;
  const n = value.toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toNumber();
  if (!Number.isFinite(n)) return null;
  return n === 0 ? 0 : n;
}

/**
 * `round2(toWan(amount))`, an amount in yuan output in 万元, without computing the quotient: with at most 5 digit
 * words (≤ 35 significant digits) `toWan` is exact — the same digits, 4 places lower — so the cents of the 万元
 * value are those of amount × 10^−2, read straight from the amount's digits.
 */
export function round2Wan(amount: Num): number | null {
  if (amount === null || !amount.isFinite() || amount.d.length > 5) return round2(toWan(amount));
  const cents = roundedCents(amount, -2);
  if (cents === null) return round2(toWan(amount));
  return cents === 0 ? 0 : (amount.s * cents) / 100;
}

/** 10^0 … 10^15, written out so that every one is exact. */
const POWERS_OF_TEN = [
  1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
] as const;

/**
 * round2's fast path: |value| × 10^scale rounded half-up to an integer — the number of cents of |value| (scale 2),
 * or of |value| ÷ 10000 (scale −2) — or null when that integer might not be exact in a double (≥ 10^15), where
 * round2 takes decimal.js's own toDecimalPlaces(2).toNumber().
 *
 * Why the result is identical: a Decimal is `s` × the base-10^7 words `d` (the words are aligned on multiples of 7
 * in the exponent: the leading word's last digit is at 10^(7⌊e/7⌋), every further word 7 digits lower). The cents
 * are the words at or above one cent (integers, so their sum below 10^15 is exact), plus one when the dropped
 * digits are at least half a cent — the word that straddles the cent is split into whole and dropped digits with
 * integer arithmetic, and the words after it cannot lift dropped digits below one half up to it. That is
 * toDecimalPlaces(2, ROUND_HALF_UP) of the magnitude, digit for digit. Then `s × cents / 100` is one correctly
 * rounded IEEE division, which yields the double nearest to the exact value cents/100 — the very double
 * `toNumber()` parses from the rounded decimal's text. No arithmetic on an amount happens here: this only
 * converts the rounded decimal.
 */
function roundedCents(value: Decimal, scale: 2 | -2): number | null {
  const words = value.d;
  // The power of ten of the last digit of word i in |value| × 10^scale.
  let exponent = 7 * Math.floor(value.e / 7) + scale;
  let cents = 0;
  for (const word of words) {
    if (exponent >= 0) {
      if (exponent >= POWERS_OF_TEN.length) return null;
      cents += word * POWERS_OF_TEN[exponent]!;
    } else {
      // The first word reaching below a cent. When all its digits lie below the half-cent digit (10^−1), it
      // rounds nothing up.
      if (exponent < -7) return cents < 1e15 ? cents : null;
      const unit = POWERS_OF_TEN[-exponent]!;
      const whole = Math.floor(word / unit);
      const dropped = word - whole * unit;
      cents += whole + (dropped >= unit / 2 ? 1 : 0);
      break;
    }
    exponent -= 7;
  }
  return cents < 1e15 ? cents : null;
}

/** Fixed 2-decimal text of a value for messages (`1234.50`), rounded like `round2`. */
export function format2(value: Decimal): string {
  const s = value.toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2);
  return s === '-0.00' ? '0.00' : s;
}
