/**
 * The engine's own division (one BigInt division) and its parse of amounts against decimal.js's `dividedBy` at the
 * engine's precision and its constructor: every value must be the very same Decimal — sign, exponent and digit
 * words — so that nothing computed from it moves.
 */
import type { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Dec, divide, parseAmount, pct, rateOfChange, toWan } from '../../worker/engine/decimal.ts';

/** `fast` is the very Decimal `reference` is. */
const expectIdentical = (fast: Decimal, reference: Decimal, what: string) => {
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

/** divide, pct and rateOfChange give what decimal.js alone gives for a ÷ b, (a × 100) ÷ b and (a × 100) ÷ |b|. */
const expectSame = (a: Decimal, b: Decimal) => {
  const what = `${a.toString()} ÷ ${b.toString()}`;
  expectIdentical(divide(a, b), a.dividedBy(b), what);
  expectIdentical(pct(a, b)!, a.times(100).dividedBy(b), `${what} in %`);
  expectIdentical(rateOfChange(a, b)!, a.times(100).dividedBy(b.abs()), `${what} as a rate of change`);
};

/** parseAmount reads `text` as decimal.js alone reads it (trimmed; null where that fails or is not finite). */
const expectParsedAlike = (text: string) => {
  const reference = (() => {
    try {
      const d = new Dec(text.trim());
      return d.isFinite() ? d : null;
    } catch {
      return null;
    }
  })();
  const parsed = parseAmount(text);
  if (reference === null || parsed === null) expect(parsed, text).toBe(reference);
  else expectIdentical(parsed, reference, text);
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

describe('the engine’s decimal fast paths', () => {
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
      { numRuns: 2_000 },
    );
    fc.assert(
      fc.property(decimalText(56), decimalText(56), (a, b) => expectSame(new Dec(a), new Dec(b))),
      { numRuns: 2_000 },
    );
    // What the engine divides next: quotients (40 digits) by amounts and by other quotients.
    fc.assert(
      fc.property(decimalText(24), decimalText(24), decimalText(24), (a, b, c) => {
        const q = new Dec(a).dividedBy(new Dec(b));
        expectSame(q, new Dec(c));
        expectSame(new Dec(c), q);
        // q + 1 is zero when a = −b: no quotient to compare.
        if (!q.plus(1).isZero()) expectSame(q.times(100), q.plus(1));
      }),
      { numRuns: 2_000 },
    );
  });

  it('parses amounts into the Decimal decimal.js’s constructor makes', () => {
    for (const text of [
      '0',
      '-0',
      '0.00',
      '1000',
      '1000.00',
      '-1234567.89',
      '0.005',
      '-0.0000001',
      '.5',
      '12.',
      '007.50',
      '1234567',
      '12345678',
      '99999999999999999999.99',
      '123456789012345678901234567890123456789012345678901234567890',
      '1234567890123456789012345678901234567890123456789012345678901',
      ' 12.5',
      '12.5 ',
      '',
      '  ',
      '.',
      '-',
      '-.',
      '+1',
      '1e5',
      '1.2.3',
      '12a',
      'Infinity',
      'NaN',
    ])
      expectParsedAlike(text);
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.stringMatching(/^[0-9]{0,30}$/),
        fc.option(fc.stringMatching(/^[0-9]{0,30}$/)),
        (negative, whole, fraction) =>
          expectParsedAlike(`${negative ? '-' : ''}${whole}${fraction === null ? '' : `.${fraction}`}`),
      ),
      { numRuns: 10_000 },
    );
  });

  it('converts to 万元 as decimal.js’s times(0.0001) does, digit for digit', () => {
    const same = (text: string) => {
      const value = new Dec(text);
      expectIdentical(toWan(value)!, value.times('0.0001'), text);
    };
    for (const text of [
      '1',
      '-1',
      '10000',
      '123456789.12',
      '0.0001',
      '9999999',
      '99999999999999999999.99',
      '1e-30',
    ])
      same(text);
    // 40 digits (a computed value) shift exactly; 41 and more are rounded by decimal.js's multiplication.
    same('1234567890123456789012345678901234567890');
    same('12345678901234567890123456789012345678905');
    same('123456789012345678901234567890123456789012345678901234567890');
    fc.assert(
      fc.property(decimalText(44), (text) => same(text)),
      { numRuns: 2_000 },
    );
  });
});
