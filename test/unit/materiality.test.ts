/**
 * The materiality guards compare |part| × 100 with percent × whole instead of dividing (worker/engine/materiality.ts):
 * on amounts as the submission schema allows them (up to 22 integer digits and 2 decimals, either sign), the answer
 * is the one the 40-digit division gave — property-tested against it, near the thresholds too.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Dec, pct } from '../../worker/engine/decimal.ts';
import { growthNullReason, TINY_BASE_PCT } from '../../worker/engine/materiality.ts';

/** The guard as it was: pct(|base|, scale) < TINY_BASE_PCT by a 40-digit division. */
function byDivision(
  current: InstanceType<typeof Dec>,
  base: InstanceType<typeof Dec>,
  scale: InstanceType<typeof Dec>,
) {
  if (base.isZero()) return null;
  if (!current.isZero() && current.isNegative() !== base.isNegative()) return 'sign_change';
  if (scale.greaterThan(0) && pct(base.abs(), scale)!.lessThan(TINY_BASE_PCT)) return 'tiny_base';
  return null;
}

const fen = fc.bigInt({ min: -(10n ** 24n) + 1n, max: 10n ** 24n - 1n });
const amount = fen.map((value) => new Dec(value.toString()).dividedBy(100));

describe('growthNullReason without division', () => {
  it('agrees with the division on any amounts', () => {
    fc.assert(
      fc.property(amount, amount, amount, (current, base, scale) => {
        expect(growthNullReason(current, base, scale)).toBe(byDivision(current, base, scale));
      }),
      { numRuns: 5000 },
    );
  });

  it('agrees at and around the threshold (base = scale × 0.5 % ± a fen)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 200n, max: 10n ** 24n - 1n }),
        fc.integer({ min: -3, max: 3 }),
        (scaleFen, offset) => {
          const scale = new Dec(scaleFen.toString()).dividedBy(100);
          const base = scale
            .times(TINY_BASE_PCT)
            .dividedBy(100)
            .toDecimalPlaces(2)
            .plus(new Dec(offset).dividedBy(100));
          if (base.lessThanOrEqualTo(0)) return;
          expect(growthNullReason(base, base, scale)).toBe(byDivision(base, base, scale));
        },
      ),
      { numRuns: 5000 },
    );
  });
});
