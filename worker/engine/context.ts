/**
 * Read access to one normalised report, built once per batch of slugs and shared by every module.
 * Amounts are parsed to Decimal lazily and memoised; a missing sheet, line or column reads as null.
 */
import { findLineItem } from '../catalogue/lineItems.ts';
import type { LineAmounts, NormalisedReport, SheetLines, SheetType } from '../types.ts';
import { average, type Num, parseAmount, rateOfChange, sub } from './decimal.ts';
import { growthNullReason, type NullReason, priorScale } from './materiality.ts';

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
   * The prior period's amount for comparisons: this year's own previous column (上年金额 / 年初余额) when submitted —
   * the comparative as the later statement presents it, restated where a retrospective adjustment was made
   * (CAS 28), so a growth rate never mixes a restated and an unrestated base — otherwise the previous submitted
   * year's current column.
   */
  priorPeriod(year: number, sheet: SheetType, key: string): Num;
  /** (beginning + ending balance) / 2 of the same year's balance sheet; null if either balance is missing. */
  averageBalance(year: number, key: string): Num;
  /**
   * `changeRate(line, priorPeriod)` of one line: the year-on-year change rate (%) many modules show. Computed
   * once per report and line, however many modules ask.
   */
  lineChangeRate(year: number, sheet: SheetType, key: string): Num;
  /**
   * Why `lineChangeRate` is null although both amounts exist (materiality.ts): `tiny_base` or `sign_change`;
   * null when the rate is meaningful (or missing for want of an amount).
   */
  lineChangeReason(year: number, sheet: SheetType, key: string): NullReason | null;
  /** `line − priorPeriod` of one line (the amount change behind `lineChangeRate`), computed once per report. */
  lineChange(year: number, sheet: SheetType, key: string): Num;
  /**
   * `compute(this, year)`, computed once per report and year: for a value several modules (or several metrics of
   * one module) need. `compute` must be a pure function of the report and the year, and is the memo's key (by
   * identity), so it must be defined once — at module level, not as a fresh closure per call.
   */
  memo<T>(compute: (ctx: ReportContext, year: number) => T, year: number): T;
}

/** One submitted line of one sheet and year, and what has been computed of it (`undefined` until asked for). */
interface LineMemo {
  readonly amounts: LineAmounts;
  current?: Num;
  previous?: Num;
  change?: Num;
  changeRate?: Num;
  changeReason?: NullReason | null;
}

/** One sheet of one year: its submitted lines by item key (none when the sheet is missing). */
interface SheetMemo {
  readonly submitted: boolean;
  readonly lines: ReadonlyMap<string, LineMemo>;
  readonly keys: readonly string[];
}

type YearMemo = Record<SheetType, SheetMemo>;

/**
 * `year[sheet]` with a fixed property name per branch: each load stays monomorphic, where a load keyed by a
 * variable name would go through V8's generic (megamorphic) lookup on this hot path.
 */
const sheetOf = (year: YearMemo, sheet: SheetType): SheetMemo =>
  sheet === 'income' ? year.income : sheet === 'balance' ? year.balance : year.cash_flow;

function sheetMemo(lines: SheetLines | undefined): SheetMemo {
  const memos = new Map<string, LineMemo>();
  const keys = Object.keys(lines ?? {});
  // Every field present from the start: one object shape for all memos.
  for (const key of keys) {
    memos.set(key, {
      amounts: lines![key]!,
      current: undefined,
      previous: undefined,
      change: undefined,
      changeRate: undefined,
      changeReason: undefined,
    });
  }
  return { submitted: lines !== undefined, lines: memos, keys };
}

export function createContext(report: NormalisedReport): ReportContext {
  const byYear = new Map<number, YearMemo>();
  for (const y of report.years) {
    if (byYear.has(y.year)) throw new Error(`Duplicate year ${y.year} in normalised report`);
    // Amounts are parsed when first read and memoised: modules read the same lines over and over.
    byYear.set(y.year, {
      income: sheetMemo(y.sheets.income),
      balance: sheetMemo(y.sheets.balance),
      cash_flow: sheetMemo(y.sheets.cash_flow),
    });
  }
  const years = [...byYear.keys()].sort((a, b) => a - b);
  const firstYear = years[0];
  const latestYear = years.at(-1);
  if (firstYear === undefined || latestYear === undefined) throw new Error('Normalised report has no years');

  /** The sheet's memo; undefined when the year was not submitted. */
  const sheetMemoOf = (year: number, sheet: SheetType): SheetMemo | undefined => {
    const memo = byYear.get(year);
    return memo === undefined ? undefined : sheetOf(memo, sheet);
  };
  /** The line's memo; undefined when the year, the sheet or the line was not submitted. */
  const lineMemo = (year: number, sheet: SheetType, key: string): LineMemo | undefined =>
    sheetMemoOf(year, sheet)?.lines.get(key);
  const line = (year: number, sheet: SheetType, key: string): Num => {
    const memo = lineMemo(year, sheet, key);
    if (memo === undefined) return null;
    if (memo.current === undefined) memo.current = parseAmount(memo.amounts.current);
    return memo.current;
  };
  const prior = (year: number, sheet: SheetType, key: string): Num => {
    const memo = lineMemo(year, sheet, key);
    if (memo === undefined) return null;
    if (memo.previous === undefined) {
      // The previous column usually repeats the previous year's current column: the same text is the same
      // amount, so it is parsed once (a Decimal is immutable, sharing it is safe).
      const carried = lineMemo(year - 1, sheet, key);
      memo.previous =
        carried !== undefined && carried.amounts.current === memo.amounts.previous
          ? line(year - 1, sheet, key)
          : parseAmount(memo.amounts.previous);
    }
    return memo.previous;
  };

  const previousYear = (year: number): number | null => (byYear.has(year - 1) ? year - 1 : null);
  const priorPeriod = (year: number, sheet: SheetType, key: string): Num => {
    const own = prior(year, sheet, key);
    if (own !== null) return own;
    const prev = previousYear(year);
    return prev === null ? null : line(prev, sheet, key);
  };

  const lineChange = (year: number, sheet: SheetType, key: string): Num => {
    const memo = lineMemo(year, sheet, key);
    if (memo === undefined) return null;
    if (memo.change === undefined) memo.change = sub(line(year, sheet, key), priorPeriod(year, sheet, key));
    return memo.change;
  };

  const changeReason = (year: number, sheet: SheetType, key: string): NullReason | null => {
    const memo = lineMemo(year, sheet, key);
    if (memo === undefined) return null;
    if (memo.changeReason === undefined) {
      // A per-share line (每股收益, 元/股) has no statement scale to be tiny against.
      const perShare = findLineItem(sheet, key)?.group === 'eps';
      memo.changeReason = growthNullReason(
        line(year, sheet, key),
        priorPeriod(year, sheet, key),
        perShare ? null : priorScale(ctx, year, sheet),
      );
    }
    return memo.changeReason;
  };

  const memos = new Map<(ctx: ReportContext, year: number) => unknown, Map<number, unknown>>();

  const ctx: ReportContext = {
    report,
    years,
    firstYear,
    latestYear,
    hasYear: (year) => byYear.has(year),
    previousYear,
    hasSheet: (year, sheet) => sheetMemoOf(year, sheet)?.submitted ?? false,
    keys: (year, sheet) => sheetMemoOf(year, sheet)?.keys ?? [],
    line,
    prior,
    priorPeriod,
    averageBalance: (year, key) => average(prior(year, 'balance', key), line(year, 'balance', key)),
    lineChange,
    lineChangeRate: (year, sheet, key) => {
      // A line not submitted this year has no change rate (its current amount is null).
      const memo = lineMemo(year, sheet, key);
      if (memo === undefined) return null;
      if (memo.changeRate === undefined) {
        const reason = changeReason(year, sheet, key);
        // changeRate(line, priorPeriod), from the memoised change; null when not meaningful.
        memo.changeRate =
          reason === null ? rateOfChange(lineChange(year, sheet, key), priorPeriod(year, sheet, key)) : null;
      }
      return memo.changeRate;
    },
    lineChangeReason: (year, sheet, key) => changeReason(year, sheet, key),
    memo<T>(compute: (ctx: ReportContext, year: number) => T, year: number): T {
      let byYearValues = memos.get(compute);
      if (byYearValues === undefined) {
        byYearValues = new Map();
        memos.set(compute, byYearValues);
      }
      const hit = byYearValues.get(year);
      if (hit !== undefined || byYearValues.has(year)) return hit as T;
      const value = compute(ctx, year);
      byYearValues.set(year, value);
      return value;
    },
  };
  return ctx;
}
