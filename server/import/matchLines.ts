/**
 * Matches the row labels of a statement to catalogue keys (worker/catalogue/lineItems.ts holds every name and
 * alias; nothing here lists a line name). Both sides are normalised alike: NFKC (full-width → half-width),
 * no whitespace or line breaks, no leading 一、 （一） 1. 加： 减： 其中： △ * markers, no parenthesised
 * remarks (（损失以“-”号填列）, （或股本）), no quotes.
 */

import {
  findLineItem,
  LINE_ITEMS,
  type LineItemDef,
  lineItemAliases,
  lineItemFallbackAliases,
  STATEMENT_HEADINGS,
} from '../../worker/catalogue/lineItems.ts';
import { type AccountingStandard, SHEET_TYPES, type SheetType } from '../../worker/types.ts';

const LEADING_MARKERS = [
  /^[△▲*※#☆★◆◇·•-]+/u,
  /^[一二三四五六七八九十]+[、.]/u,
  /^\([一二三四五六七八九十\d]+\)/u,
  /^\d+[、.)](?!\d)/u,
  /^(?:加|减|其中|减去|其中包括)[:：]?/u,
];

/** The form of a label that matching compares. */
export function normaliseLabel(label: string): string {
  let text = label.normalize('NFKC').replace(/[\s\u3000\u00a0]+/gu, '');
  text = text.replace(/[“”"'‘’「」]/gu, '');
  for (let previous = ''; previous !== text; ) {
    previous = text;
    for (const marker of LEADING_MARKERS) text = text.replace(marker, '');
  }
  for (let previous = ''; previous !== text; ) {
    previous = text;
    text = text.replace(/\([^()]*\)/gu, '');
  }
  return text.replace(/[:：]+$/u, '');
}

interface Candidate {
  def: LineItemDef;
  fallback: boolean;
}

/** normalised name → candidates, per sheet. */
const INDEX = new Map<SheetType, Map<string, Candidate[]>>();
const HEADINGS = new Map<SheetType, Set<string>>();
for (const sheet of SHEET_TYPES) {
  const byName = new Map<string, Candidate[]>();
  const add = (name: string, def: LineItemDef, fallback: boolean) => {
    const normalised = normaliseLabel(name);
    const list = byName.get(normalised) ?? [];
    if (!list.some((c) => c.def === def)) list.push({ def, fallback });
    byName.set(normalised, list);
  };
  for (const def of LINE_ITEMS.filter((d) => d.sheet === sheet)) {
    add(def.nameZh, def, false);
    for (const alias of lineItemAliases(sheet, def.key)) add(alias, def, false);
    for (const alias of lineItemFallbackAliases(sheet, def.key)) add(alias, def, true);
  }
  INDEX.set(sheet, byName);
  HEADINGS.set(sheet, new Set(STATEMENT_HEADINGS[sheet].map(normaliseLabel)));
}

/** Catalogue lines whose name (or alias) is `label`, on `sheet` (all sheets when null). */
export function candidatesFor(sheet: SheetType, label: string): Candidate[] {
  return INDEX.get(sheet)?.get(normaliseLabel(label)) ?? [];
}

export function isHeading(sheet: SheetType, label: string): boolean {
  return HEADINGS.get(sheet)!.has(normaliseLabel(label));
}

/** How many of `labels` name a line of each sheet type: used to tell a sheet's type when its title does not. */
export function sheetTypeVotes(labels: readonly string[]): Record<SheetType, number> {
  const votes = { income: 0, balance: 0, cash_flow: 0 } as Record<SheetType, number>;
  for (const label of labels)
    for (const sheet of SHEET_TYPES)
      if (candidatesFor(sheet, label).some((c) => !c.fallback)) votes[sheet] += 1;
  return votes;
}

/**
 * Lines only one standard's format has: the standard of a sheet that does not say (会小企 does) is read from
 * them. general_new: 合同资产, 信用减值损失 …; general_old: 可供出售金融资产 …; small: 短期投资, 固定资产原价 ….
 */
export function standardVotes(
  sheet: SheetType,
  labels: readonly string[],
): Record<AccountingStandard, number> {
  const votes = { small_enterprise: 0, general_new: 0, general_old: 0 } as Record<AccountingStandard, number>;
  for (const label of labels) {
    const candidates = candidatesFor(sheet, label).filter((c) => !c.fallback);
    if (candidates.length !== 1) continue;
    const { standards } = candidates[0]!.def;
    if (standards.length === 1) votes[standards[0]!] += 1;
  }
  return votes;
}

export type RowMatch =
  | { status: 'matched'; key: string; nameZh: string; via: 'name' | 'alias' | 'line_no' | 'fallback' }
  | { status: 'heading'; reason: string }
  | { status: 'unknown'; reason: string }
  | { status: 'ambiguous'; reason: string; candidates: string[] };

interface RowInput {
  label: string;
  lineNo: number | null;
  hasAmounts: boolean;
}

/**
 * Matches the rows of one statement block, top to bottom. A 其中 line (catalogue `breakdown` with a parent)
 * is taken only right under its parent line (利息收入 under 财务费用, not under 营业总收入 where a consolidated
 * statement lists a finance company's interest); a line matched twice is ambiguous the second time; a fallback
 * alias (应收票据及应收账款, 营业总收入) stands for its line only when no row names the line itself.
 */
export function matchRows(
  sheet: SheetType,
  standard: AccountingStandard,
  rows: readonly RowInput[],
  lineNoKeys: ReadonlyMap<number, string> | null,
): RowMatch[] {
  const results: RowMatch[] = [];
  const taken = new Map<string, number>();
  let lastMain: string | null = null;
  const pendingFallback: { index: number; candidates: Candidate[] }[] = [];

  rows.forEach((row, index) => {
    const all = candidatesFor(sheet, row.label);
    const strong = all.filter((c) => !c.fallback);
    const inStandard = strong.filter((c) => c.def.standards.includes(standard));
    if (strong.length > 0 && inStandard.length === 0) {
      const other = strong[0]!.def;
      results.push({
        status: 'unknown',
        reason: `${other.nameZh} is a line of the ${other.standards.join('/')} format, not of ${standard}'s`,
      });
      return;
    }
    if (inStandard.length > 1) {
      results.push({
        status: 'ambiguous',
        reason: `“${row.label}” names more than one line: ${inStandard.map((c) => c.def.key).join(', ')}`,
        candidates: inStandard.map((c) => c.def.key),
      });
      return;
    }
    let def = inStandard[0]?.def;
    let via: 'name' | 'alias' | 'line_no' =
      def && normaliseLabel(def.nameZh) === normaliseLabel(row.label) ? 'name' : 'alias';
    if (!def && all.length > 0) {
      pendingFallback.push({ index, candidates: all });
      results.push({ status: 'heading', reason: 'pending' });
      return;
    }
    if (!def && row.lineNo !== null && lineNoKeys?.has(row.lineNo) && row.hasAmounts) {
      def = findLineItem(sheet, lineNoKeys.get(row.lineNo)!);
      via = 'line_no';
    }
    if (!def) {
      if (!row.hasAmounts || isHeading(sheet, row.label)) {
        results.push({
          status: 'heading',
          reason: row.hasAmounts ? 'a heading or subtotal with no key' : 'no amounts',
        });
        return;
      }
      results.push({
        status: 'unknown',
        reason: `no catalogue line is called “${normaliseLabel(row.label)}”`,
      });
      return;
    }
    if (def.group === 'breakdown' && def.parent && lastMain !== def.parent && via !== 'line_no') {
      const parent = findLineItem(sheet, def.parent);
      results.push({
        status: 'ambiguous',
        reason: `“${row.label}” is a 其中 line of ${parent?.nameZh ?? def.parent} but is not listed under it here (e.g. a finance company's line of a consolidated statement)`,
        candidates: [def.key],
      });
      return;
    }
    if (def.group !== 'breakdown' && def.group !== 'oci' && def.group !== 'oci_category') lastMain = def.key;
    if (taken.has(def.key)) {
      results.push({
        status: 'ambiguous',
        reason: `${def.key} (${def.nameZh}) was already matched by row ${taken.get(def.key)! + 1} of this statement`,
        candidates: [def.key],
      });
      return;
    }
    taken.set(def.key, index);
    results.push({ status: 'matched', key: def.key, nameZh: def.nameZh, via });
  });

  for (const { index, candidates } of pendingFallback) {
    const free = candidates.filter((c) => !taken.has(c.def.key));
    const def = free.length === 1 ? free[0]!.def : undefined;
    if (def && rows[index]!.hasAmounts) {
      taken.set(def.key, index);
      results[index] = { status: 'matched', key: def.key, nameZh: def.nameZh, via: 'fallback' };
    } else {
      const shown = candidates.map((c) => c.def.nameZh).join('、');
      results[index] = { status: 'heading', reason: `a heading here: the statement lists ${shown} itself` };
    }
  }
  return results;
}
