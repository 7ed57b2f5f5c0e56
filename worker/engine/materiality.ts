/**
 * When a growth rate means something, and when a line matters: the two guards every growth- or share-based rule
 * and every change rate goes through.
 *
 * - A change rate is not meaningful (null, with a reason code in `null_reasons`) when its base is tiny against
 *   the statement — |base| below TINY_BASE_PCT of the prior period's total assets (balance sheet) or revenue
 *   (income and cash flow statements) — (`tiny_base`), or when base and current amount have opposite signs
 *   (`sign_change`: from a loss to a profit a percentage is no measure). Never a five-digit percentage.
 * - A rule on a line's growth or share fires only when the line is material: at least MATERIAL_PCT_OF_ASSETS of
 *   total assets (balance lines) or MATERIAL_PCT_OF_REVENUE of revenue (income lines), in the year judged.
 */

import type { Decimal } from 'decimal.js';
import type { SheetType } from '../types.ts';
import type { ReportContext } from './context.ts';
import { changeRate, type Num, num } from './decimal.ts';

export const TINY_BASE_PCT = 0.5;
export const MATERIAL_PCT_OF_ASSETS = 5;
export const MATERIAL_PCT_OF_REVENUE = 2;

export type NullReason = 'tiny_base' | 'sign_change';

/** The catalogue's explanation of every reason code (contract: catalogue `null_reasons`). */
export const NULL_REASONS: Readonly<Record<NullReason, string>> = {
  tiny_base: `上期基数过小（绝对值不足上期资产总计或营业收入的${TINY_BASE_PCT}%），增长率无意义（n.m.）`,
  sign_change: '上期与本期符号相反（如由亏转盈），增长率无意义（n.m.）',
};

const TINY = num(TINY_BASE_PCT);
const ONE_HUNDREDTH = num('0.01');
const MATERIAL_OF_ASSETS = num(MATERIAL_PCT_OF_ASSETS);
const MATERIAL_OF_REVENUE = num(MATERIAL_PCT_OF_REVENUE);

/**
 * Whether |part| is below `percent` % of `whole` (whole > 0): |part| × 100 < percent × whole, the comparison of
 * pct(|part|, whole) with `percent` without its division. The same answer: for amounts (at most 24 significant
 * digits under the submission schema) and their sums both products are exact, and the old 40-digit quotient could
 * only round onto the threshold from within 10⁻³⁹ of it, which such values cannot be; for a computed value of 40
 * digits the two comparisons can differ only there. Every line of every year goes through this; the division was
 * a tenth of the engine's time.
 */
function belowPercentOf(part: Decimal, percent: Decimal, whole: Decimal): boolean {
  // |part| × 100 < percent × whole  ⇔  −t < part < t with t = percent × whole ÷ 100 — exact, a shift of the
  // product's digits — made once per whole (a year's total assets or revenue, the same Decimal for every line).
  let byWhole = THRESHOLDS.get(percent);
  if (byWhole === undefined) {
    byWhole = new WeakMap();
    THRESHOLDS.set(percent, byWhole);
  }
  let threshold = byWhole.get(whole);
  if (threshold === undefined) {
    const t = percent.times(whole).times(ONE_HUNDREDTH);
    threshold = { below: t, above: t.negated() };
    byWhole.set(whole, threshold);
  }
  return part.lessThan(threshold.below) && part.greaterThan(threshold.above);
}

/** belowPercentOf's thresholds, by percent (a few constants) and whole. */
const THRESHOLDS = new Map<Decimal, WeakMap<Decimal, { below: Decimal; above: Decimal }>>();

/** Why a change rate from `base` to `current` is not meaningful against the statement's `scale`; null if it is. */
export function growthNullReason(current: Num, base: Num, scale: Num): NullReason | null {
  if (current === null || base === null || base.isZero()) return null;
  if (!current.isZero() && current.isNegative() !== base.isNegative()) return 'sign_change';
  if (scale?.greaterThan(0) && belowPercentOf(base, TINY, scale)) return 'tiny_base';
  return null;
}

/** `changeRate(current, base)` unless growthNullReason says it is not meaningful (then null). */
export function guardedChangeRate(current: Num, base: Num, scale: Num): Num {
  return growthNullReason(current, base, scale) === null ? changeRate(current, base) : null;
}

/** The statement scale a sheet's change rates are judged against, for the prior period of `year`. */
export function priorScale(ctx: ReportContext, year: number, sheet: SheetType): Num {
  return sheet === 'balance'
    ? ctx.priorPeriod(year, 'balance', 'total_assets')
    : ctx.priorPeriod(year, 'income', 'revenue');
}

/** Whether a line is material in `year`: its share of total assets (balance) or revenue (income, cash flow). */
export function isMaterialLine(ctx: ReportContext, year: number, sheet: SheetType, key: string): boolean {
  const amount = ctx.line(year, sheet, key);
  if (amount === null) return false;
  const base =
    sheet === 'balance' ? ctx.line(year, 'balance', 'total_assets') : ctx.line(year, 'income', 'revenue');
  // Without a positive base materiality cannot be judged: the rule keeps firing as before.
  if (base === null || !base.greaterThan(0)) return true;
  return !belowPercentOf(amount, sheet === 'balance' ? MATERIAL_OF_ASSETS : MATERIAL_OF_REVENUE, base);
}

/** Catalogue wording of the materiality floor, appended to a rule's description. */
export function materialityNote(sheet: SheetType): string {
  return sheet === 'balance'
    ? `（仅当该项目不低于资产总计的${MATERIAL_PCT_OF_ASSETS}%时判断）`
    : `（仅当该项目不低于营业收入的${MATERIAL_PCT_OF_REVENUE}%时判断）`;
}
