/**
 * Helpers shared by the section-5 cross-check modules: Chinese line names and statement order from the line
 * catalogue, the materiality rule that grades a mismatch, and the figure formatting of their messages.
 */
import type { Decimal } from 'decimal.js';
import { findLineItem, LINE_ITEMS } from '../../../catalogue/lineItems.ts';
import type { SheetType } from '../../../types.ts';
import { format2, type Num, num, pct, toWan } from '../../decimal.ts';
import type { RiskTier } from '../../module.ts';

export const SHEET_LABELS: Readonly<Record<SheetType, string>> = {
  balance: '资产负债表',
  income: '利润表',
  cash_flow: '现金流量表',
};

/** Chinese name of a line as printed on the official statement; an unknown key is returned unchanged. */
export function lineName(sheet: SheetType, key: string): string {
  return findLineItem(sheet, key)?.nameZh ?? key;
}

/** Sheet → key → position in the catalogue. */
const STATEMENT_ORDER = new Map<SheetType, Map<string, number>>();
LINE_ITEMS.forEach((def, i) => {
  let order = STATEMENT_ORDER.get(def.sheet);
  if (!order) {
    order = new Map();
    STATEMENT_ORDER.set(def.sheet, order);
  }
  order.set(def.key, i);
});

/** Keys in statement (catalogue) order; keys the catalogue does not know follow, alphabetically. */
export function sortStatementKeys(sheet: SheetType, keys: Iterable<string>): string[] {
  const order = STATEMENT_ORDER.get(sheet);
  const rank = (key: string) => order?.get(key) ?? Number.MAX_SAFE_INTEGER;
  return [...keys].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Materiality of a mismatch, the same rule as balance_sheet: danger when |difference| ≥ 1% of the base
 * (revenue for flows, total assets for balances), otherwise warning. Tiers most severe first.
 */
export const MATERIALITY_TIERS: readonly RiskTier[] = [
  { level: 'danger', threshold: 1 },
  { level: 'warning', threshold: 0 },
];

/**
 * Grading of a restated comparative (a year's 年初余额/上年金额 differing from the previous year's own figure): CAS 28
 * presents retrospective adjustments (追溯调整: 会计政策变更, 差错更正) exactly this way, so a small difference is
 * information, not an error. Share of the previous year's total assets (balance lines) or revenue (income and cash
 * flow lines): info below 1%, warning from 1%, danger from 5%. Tiers most severe first.
 */
export const RESTATEMENT_TIERS: readonly RiskTier[] = [
  { level: 'danger', threshold: 5 },
  { level: 'warning', threshold: 1 },
  { level: 'info', threshold: 0 },
];

/** The level of a restatement; an unknown share (no positive base) is a warning. */
export function restatementLevel(share: Num): 'danger' | 'warning' | 'info' {
  if (share === null) return 'warning';
  const tier = RESTATEMENT_TIERS.find((t) => share.greaterThanOrEqualTo(num(t.threshold)));
  return tier?.level ?? 'info';
}

/**
 * The likely cause of restated comparatives in one statement of one year, for the message: when the statement's
 * total (资产总计 / 净利润 / 现金净增加额) was restated too, a retrospective adjustment (追溯调整: 会计政策变更 or
 * 差错更正); when the total is unchanged, a reclassification between lines (列报调整, usually a 会计政策变更 such as
 * a new format or interpretation).
 */
export function restatementCause(totalRestated: boolean | null): string {
  if (totalRestated === true) return '追溯调整（会计政策变更或前期差错更正）';
  if (totalRestated === false) return '报表项目重分类（会计政策变更或列报调整，合计数未变）';
  return '追溯调整（会计政策变更或前期差错更正）或录入错误';
}

/** |difference| as a percentage of the base; null without a positive base. */
export function materialityShare(difference: Decimal, base: Num): Num {
  if (base === null || base.lessThanOrEqualTo(0)) return null;
  return pct(difference.abs(), base);
}

const DANGER_SHARE = num(MATERIALITY_TIERS[0]!.threshold);
const ZERO = num(0);

/** The level of a mismatch; an unknown share (no positive base) is judged as 0, the least severe tier. */
export function materialityLevel(share: Num): 'danger' | 'warning' {
  return (share ?? ZERO).greaterThanOrEqualTo(DANGER_SHARE) ? 'danger' : 'warning';
}

/**
 * Tolerance of every identity check: statements are often transcribed to whole yuan, so a sum of n lines can be
 * off by up to n yuan without any error. A difference is negligible — not a mismatch — when it is below one yuan
 * per summed line, or when it rounds to 0.00 in the unit the message shows it in (万元: below 50 yuan), so no
 * message ever states a difference of 0.00.
 */
export const TOLERANCE_YUAN_PER_LINE = 1;
const HALF_CENT_WAN_IN_YUAN = num(50);
const HALF_CENT = num('0.005');

export function isNegligible(
  difference: Decimal,
  summedLines: number,
  unit: '万元' | '元' = '万元',
  roundedTo = 1,
): boolean {
  const abs = difference.abs();
  // A per-share figure (元/股) is no yuan amount: only the display rounding applies.
  if (unit === '元') return abs.lessThan(HALF_CENT);
  // Each line rounded to `roundedTo` yuan is off by at most half of it: n lines, n halves.
  const perLine = Math.max(TOLERANCE_YUAN_PER_LINE, roundedTo / 2);
  if (abs.lessThan(num(perLine * Math.max(1, summedLines)))) return true;
  return abs.lessThan(unit === '万元' ? HALF_CENT_WAN_IN_YUAN : HALF_CENT);
}

/** The units a statement may be transcribed in, largest first: whole 万元, 千元, 百元, 十元. */
const ROUNDING_UNITS = [10_000, 1_000, 100, 10] as const;
/** Fewer non-zero amounts than this say nothing about how a statement was rounded. */
const MIN_AMOUNTS_FOR_ROUNDING = 8;

/**
 * The unit a statement's amounts were rounded to, in yuan: the largest of 万元, 千元, 百元 and 十元 that every
 * non-zero amount is a whole multiple of (a filing published in 万元 and entered in yuan, say), else 1. Needs at
 * least MIN_AMOUNTS_FOR_ROUNDING non-zero amounts, so that a few round figures are not taken for a rounded
 * statement.
 */
export function roundingUnit(amounts: readonly (Decimal | null)[]): number {
  const nonZero = amounts.filter((a): a is Decimal => a !== null && !a.isZero());
  if (nonZero.length < MIN_AMOUNTS_FOR_ROUNDING) return 1;
  return ROUNDING_UNITS.find((unit) => nonZero.every((a) => a.modulo(unit).isZero())) ?? 1;
}

/** A yuan amount as 万元 text with 2 decimals (`1234.50`). */
export function wanText(value: Decimal): string {
  return format2(toWan(value)!);
}

/** The `{share}` part of a mismatch message: `，占2023年营业收入的1.23%`, or nothing without a base. */
export function shareText(share: Num, baseText: string): string {
  if (share === null) return '';
  // A share that rounds to 0.00% reads as “不足0.01%”, never as a zero.
  const text = format2(share) === '0.00' ? '不足0.01' : format2(share);
  return `，占${baseText}的${text}%`;
}
