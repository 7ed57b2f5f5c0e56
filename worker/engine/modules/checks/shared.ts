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

/** A yuan amount as 万元 text with 2 decimals (`1234.50`). */
export function wanText(value: Decimal): string {
  return format2(toWan(value)!);
}

/** The `{share}` part of a mismatch message: `，占2023年营业收入的1.23%`, or nothing without a base. */
export function shareText(share: Num, baseText: string): string {
  return share === null ? '' : `，占${baseText}的${format2(share)}%`;
}
