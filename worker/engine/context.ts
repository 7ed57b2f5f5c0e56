/**
 * Read access to one normalised report, built once per batch of slugs and shared by every module.
 * Amounts are parsed to Decimal lazily and memoised; a missing sheet, line or column reads as null.
 */
import type { Decimal } from 'decimal.js';
import type { NormalisedReport, SheetLines, SheetType, YearStatements } from '../types.ts';
import { average, type Num, parseAmount } from './decimal.ts';

export interface ReportContext {
  readonly report: NormalisedReport;
  /** Submitted years, ascending. Never empty. */
  readonly years: readonly number[];
  readonly firstYear: number;
  /** The latest submitted year (`released_year` of the analysis). */
  readonly latestYear: number;
  hasYear(year: number): boolean;
  /** `year − 1` when that year was submitted, otherwise null. */
  previousYear(year: number): number | null;
  hasSheet(year: number, sheet: SheetType): boolean;
  /** Item keys present on one sheet of one year (input order). */
  keys(year: number, sheet: SheetType): readonly string[];
  /** The current-period column: `current_year_amount` or `ending_balance`. */
  line(year: number, sheet: SheetType, key: string): Num;
  /** The previous-period column of the same year's statement: `last_year_amount` or `beginning_balance`. */
  prior(year: number, sheet: SheetType, key: string): Num;
  /**
   * The prior period's amount for comparisons: the previous submitted year's current column when that year was
   * submitted (even if the line is missing there — no mixing of sources within one comparison), otherwise this
   * year's own previous column (the first submitted year).
   */
  priorPeriod(year: number, sheet: SheetType, key: string): Num;
  /** (beginning + ending balance) / 2 of the same year's balance sheet; null if either balance is missing. */
  averageBalance(year: number, key: string): Num;
}

type Column = 'current' | 'previous';

export function createContext(report: NormalisedReport): ReportContext {
  const byYear = new Map<number, YearStatements>();
  for (const y of report.years) {
    if (byYear.has(y.year)) throw new Error(`Duplicate year ${y.year} in normalised report`);
    byYear.set(y.year, y);
  }
  const years = [...byYear.keys()].sort((a, b) => a - b);
  const firstYear = years[0];
  const latestYear = years.at(-1);
  if (firstYear === undefined || latestYear === undefined) throw new Error('Normalised report has no years');

  // Parsed amounts, memoised per year → sheet+column → key: modules read the same lines over and over, and
  // nested maps keep the lookup free of string building on this hot path.
  const cache = new Map<number, Map<string, Map<string, Num>>>();
  const sheetOf = (year: number, sheet: SheetType): SheetLines | undefined => byYear.get(year)?.sheets[sheet];

  const read = (year: number, sheet: SheetType, key: string, column: Column): Num => {
    let byYearCache = cache.get(year);
    if (!byYearCache) {
      byYearCache = new Map();
      cache.set(year, byYearCache);
    }
    const slot = column === 'current' ? sheet : `${sheet}:previous`;
    let bySheet = byYearCache.get(slot);
    if (!bySheet) {
      bySheet = new Map();
      byYearCache.set(slot, bySheet);
    }
    const hit = bySheet.get(key);
    if (hit !== undefined) return hit;
    const lines = sheetOf(year, sheet);
    const amounts = lines && Object.hasOwn(lines, key) ? lines[key] : undefined;
    const value: Decimal | null = amounts ? parseAmount(amounts[column]) : null;
    bySheet.set(key, value);
    return value;
  };

  const previousYear = (year: number): number | null => (byYear.has(year - 1) ? year - 1 : null);

  return {
    report,
    years,
    firstYear,
    latestYear,
    hasYear: (year) => byYear.has(year),
    previousYear,
    hasSheet: (year, sheet) => sheetOf(year, sheet) !== undefined,
    keys: (year, sheet) => Object.keys(sheetOf(year, sheet) ?? {}),
    line: (year, sheet, key) => read(year, sheet, key, 'current'),
    prior: (year, sheet, key) => read(year, sheet, key, 'previous'),
    priorPeriod: (year, sheet, key) => {
      const prev = previousYear(year);
      return prev === null ? read(year, sheet, key, 'previous') : read(prev, sheet, key, 'current');
    },
    averageBalance: (year, key) =>
      average(read(year, 'balance', key, 'previous'), read(year, 'balance', key, 'current')),
  };
}
