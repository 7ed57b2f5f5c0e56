/**
 * The engine's division (one BigInt division) against decimal.js's own `dividedBy` at the engine's precision: every
 * quotient must be the very same Decimal — sign, exponent and digit words — so that nothing computed from it moves.
 */
import type { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Dec, divide } from '../../worker/engine/decimal.ts';

const expectSame = (a: Decimal, b: Decimal) => {
  const fast = divide(a, b);
  const reference = a.dividedBy(b);
  const what = `${a.toString()} ÷ ${b.toString()}`;
  expect({ s: fast.s, e: fast.e, d: fast.d }, what).toEqual({
    s: reference.s,
    e: reference.e,
    d: reference.d,
  });
  expect(fast.toString(), what).toBe(reference.toString());
  expect(fast.constructor, what).toBe(Dec);
  expect(Object.keys(fast), what).toEqual(Object.keys(reference));
  expect(fast.precision(true), what).toBe(reference.precision(true));
};

/** A decimal's text: up to `maxDigits` significant digits, a sign, anywhere from 10^−30 to 10^30. */
const decimalText = (maxDigits: number) =>
  fc
    .tuple(
      fc.boolean(),
      fc.stringMatching(new RegExp(`^[1-9][0-9]{0,${maxDigits - 1}}$`)),
      fc.integer({ min: -30, max: 30 }),
    )
    .map(([negative, digits, exponent]) => `${negative ? '-' : ''}${digits}e${exponent}`);

describe('divide', () => {
  it('is decimal.js’s quotient on ties, exact quotients, carries to a new power of ten and sign', () => {
    const cases: Array<[string, string]> = [
      ['450', '100'],
      ['1', '3'],
      ['2', '3'],
      ['-2', '3'],
      ['2', '-3'],
      ['-1', '-7'],
      ['1', '8'],
      ['100', '0.0001'],
      ['123456789.12', '98765432.1'],
      ['0.01', '1e20'],
      // A 40-digit quotient whose 41st digit is 5 (a tie, rounded away from zero), and one just below it.
      ['12345678901234567890123456789012345678905', '10'],
      ['12345678901234567890123456789012345678904999', '1000'],
      // Nines that round up into a new power of ten, across a word boundary.
      ['99999999999999999999999999999999999999995', '1'],
      ['9999999999999999999999999999999999999999.5', '10'],
      ['9999999', '9999999'],
      ['1e-30', '3'],
      ['7', '1e-30'],
      ['99999999999999999999999999999999999999999999999999999999', '7'],
      ['1', '99999999999999999999999999999999999999999999999999999999'],
      // More than 8 digit words: decimal.js's own division.
      ['123456789012345678901234567890123456789012345678901234567890', '7'],
    ];
    for (const [a, b] of cases) expectSame(new Dec(a), new Dec(b));
    // Zero and non-finite dividends are decimal.js's own.
    for (const a of ['0', '-0', 'Infinity', 'NaN']) expectSame(new Dec(a), new Dec('3'));
  });

  it('is decimal.js’s quotient for random amounts, 40-digit computed values and their quotients', () => {
    fc.assert(
      fc.property(decimalText(24), decimalText(24), (a, b) => expectSame(new Dec(a), new Dec(b))),
      { numRuns: 5_000 },
    );
    fc.assert(
      fc.property(decimalText(56), decimalText(56), (a, b) => expectSame(new Dec(a), new Dec(b))),
      { numRuns: 5_000 },
    );
    // What the engine divides next: quotients (40 digits) by amounts and by other quotients.
    fc.assert(
      fc.property(decimalText(24), decimalText(24), decimalText(24), (a, b, c) => {
        const q = new Dec(a).dividedBy(new Dec(b));
        expectSame(q, new Dec(c));
        expectSame(new Dec(c), q);
        expectSame(q.times(100), q.plus(1));
      }),
      { numRuns: 5_000 },
    );
  });
});
