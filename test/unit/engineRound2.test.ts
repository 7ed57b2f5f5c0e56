/**
 * round2's and round2Wan's fast path (cents read from the Decimal's digit words) against the plain decimal.js
 * conversion it replaces: every value must give the very same number.
 */
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { Dec, num, round2, round2Wan } from '../../worker/engine/decimal.ts';

/** The reference: round2 as decimal.js alone computes it. */
function reference(value: Decimal): number | null {
  if (!value.isFinite()) return null;
  const n = value.toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toNumber();
  if (!Number.isFinite(n)) return null;
  return n === 0 ? 0 : n;
}

/** A small deterministic generator (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function digits(next: () => number, count: number): string {
  let s = String(1 + Math.floor(next() * 9));
  for (let i = 1; i < count; i++) s += String(Math.floor(next() * 10));
  return s;
}

/** round2(value ÷ 10000) as decimal.js alone computes it. */
const referenceWan = (value: Decimal) => reference(value.dividedBy(10_000));

/** Both fast paths give exactly (Object.is: −0 too) what decimal.js alone gives for `value`. */
const expectSame = (value: Decimal) => {
  expect(Object.is(round2(value), reference(value)), value.toString()).toBe(true);
  expect(Object.is(round2Wan(value), referenceWan(value)), `${value.toString()} in 万元`).toBe(true);
};

describe('round2 and round2Wan', () => {
  it('matches toDecimalPlaces(2).toNumber() on ties, signs, zeros and the edges of the fast path', () => {
    const cases = [
      '0',
      '-0',
      '0.004999',
      '0.005',
      '-0.005',
      '0.0049999999999999999999999999999999999999',
      '0.01',
      '0.094',
      '0.095',
      '0.995',
      '-0.995',
      '1.005',
      '-1.005',
      '2.344999',
      '12345.6749999',
      '12345.675',
      '0.0000001',
      '0.00000049',
      '-0.00000051',
      '9999999.995',
      '1e-30',
      '-5e-3',
      '9999999999999.994',
      '9999999999999.995',
      '99999999999999.99',
      '999999999999999.99',
      '1000000000000000',
      '123456789012345678.125',
      '1e21',
      '-1e300',
      '1e400',
    ];
    for (const c of cases) expectSame(new Dec(c));
    expectSame(new Dec(Number.NaN));
    expectSame(new Dec(Number.POSITIVE_INFINITY));
  });

  it('matches on random amounts, quotients and 40-digit results at every magnitude', () => {
    const next = random(20261121);
    for (let i = 0; i < 20_000; i++) {
      const integerDigits = Math.floor(next() * 20);
      const fractionDigits = Math.floor(next() * 10);
      const sign = next() < 0.3 ? '-' : '';
      const text = `${sign}${integerDigits === 0 ? '0' : digits(next, integerDigits)}.${fractionDigits === 0 ? '0' : digits(next, fractionDigits)}`;
      const amount = new Dec(text);
      expectSame(amount);
      const divisor = new Dec(digits(next, 1 + Math.floor(next() * 14))).times(
        Dec.pow(10, -Math.floor(next() * 6)),
      );
      expectSame(amount.dividedBy(divisor));
      expectSame(amount.dividedBy(divisor).times(100));
      expectSame(amount.times('0.0001'));
      expectSame(amount.times(Dec.pow(10, Math.floor(next() * 40) - 30)));
    }
  });
});

describe('num', () => {
  it('makes each constant once and shares it, keeping the sign of zero apart', () => {
    expect(num(11.9)).toBe(num(11.9));
    expect(num('0.5')).toBe(num('0.5'));
    expect(num(11.9).toString()).toBe('11.9');
    // A Map does not tell -0 from 0: neither may come back as the other.
    expect(num(0).isNegative()).toBe(false);
    expect(num(-0).isNegative()).toBe(true);
    expect(num(0).isNegative()).toBe(false);
  });
});
