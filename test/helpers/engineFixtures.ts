/**
 * Shared helpers of the engine golden tests: loading the submission fixtures, a tiny stand-in for the normaliser,
 * exact rational arithmetic on BigInt (independent of decimal.js and of the engine) and raw fixture access.
 */
import { readFileSync } from 'node:fs';
import type { EnterpriseInfo, NormalisedReport, SheetLines, SheetType } from '../../worker/types.ts';

export interface RawItem {
  item_name: string;
  current_year_amount?: string;
  last_year_amount?: string;
  ending_balance?: string;
  beginning_balance?: string;
}

export interface RawSubmission {
  enterprise_name: string;
  accounting_standard: NormalisedReport['standard'];
  enterprise_info?: EnterpriseInfo;
  years_data: { year: number; sheets: { sheet_type: SheetType; items: RawItem[] }[] }[];
}

export const FIXTURES = [
  'general_new-3y',
  'small_enterprise-2y-no-cash-flow',
  'general_old-5y-ai',
  'general_new-4y-inconsistent',
] as const;
export type FixtureName = (typeof FIXTURES)[number];

export function loadFixture(name: FixtureName): RawSubmission {
  return JSON.parse(
    readFileSync(new URL(`../fixtures/${name}.json`, import.meta.url), 'utf8'),
  ) as RawSubmission;
}

/** Item lists → { current, previous } maps; general_old's positive impairment loss is flipped to the 2019 sign. */
export function toReport(raw: RawSubmission): NormalisedReport {
  return {
    enterpriseName: raw.enterprise_name,
    standard: raw.accounting_standard,
    enterpriseInfo: raw.enterprise_info ? { ...raw.enterprise_info } : null,
    years: raw.years_data.map((y) => ({
      year: y.year,
      sheets: Object.fromEntries(
        y.sheets.map((s) => {
          const lines: SheetLines = {};
          for (const item of s.items) {
            const current = s.sheet_type === 'balance' ? item.ending_balance : item.current_year_amount;
            const previous = s.sheet_type === 'balance' ? item.beginning_balance : item.last_year_amount;
            lines[item.item_name] = { current: current!, previous: previous ?? null };
          }
          const impairment = lines.asset_impairment;
          if (raw.accounting_standard === 'general_old' && s.sheet_type === 'income' && impairment) {
            const neg = (v: string) => (v.startsWith('-') ? v.slice(1) : `-${v}`);
            lines.asset_impairment = {
              current: neg(impairment.current),
              previous: impairment.previous === null ? null : neg(impairment.previous),
            };
          }
          return [s.sheet_type, lines];
        }),
      ),
    })),
  };
}

// exact rationals

export interface Q {
  n: bigint;
  d: bigint;
}
export type R = Q | null;

export function q(text: string): Q {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!m) throw new Error(`bad amount ${text}`);
  const frac = m[3] ?? '';
  const n = BigInt(`${m[2]}${frac}`);
  return { n: m[1] === '-' ? -n : n, d: 10n ** BigInt(frac.length) };
}
export const int = (v: number | bigint): Q => ({ n: BigInt(v), d: 1n });
export const qadd = (a: R, b: R): R => (a && b ? { n: a.n * b.d + b.n * a.d, d: a.d * b.d } : null);
export const qsub = (a: R, b: R): R => (a && b ? { n: a.n * b.d - b.n * a.d, d: a.d * b.d } : null);
export const qmul = (a: R, b: R): R => (a && b ? { n: a.n * b.n, d: a.d * b.d } : null);
export function qdiv(a: R, b: R): R {
  if (!a || !b || b.n === 0n) return null;
  const n = a.n * b.d;
  const d = a.d * b.n;
  return d < 0n ? { n: -n, d: -d } : { n, d };
}
export const qpct = (a: R, b: R): R => qmul(qdiv(a, b), int(100));
export const qwan = (a: R): R => qdiv(a, int(10_000));
export const qavg = (a: R, b: R): R => qdiv(qadd(a, b), int(2));
export const qabs = (a: Q): Q => (a.n < 0n ? { n: -a.n, d: a.d } : a);
export const qsign = (a: Q): number => (a.n > 0n ? 1 : a.n < 0n ? -1 : 0);
export const qcmp = (a: Q, b: Q): number => qsign(qsub(a, b)!);
/** Sum; null when any term is null. */
export const qsum = (values: readonly R[]): R => values.reduce<R>((acc, v) => qadd(acc, v), int(0));
/** (current − base) / |base| × 100; null when base is zero or missing. */
export const qchange = (current: R, base: R): R =>
  current && base && base.n !== 0n ? qpct(qsub(current, base), qabs(base)) : null;

/**
 * The engine's guarded change rate of one line (materiality.ts): null with a reason when base and current have
 * opposite signs (`sign_change`) or |base| is below 0.5% of the prior period's scale (`tiny_base`).
 */
export function qgrowth(current: R, base: R, scale: R): { rate: R; reason: string | null } {
  if (current === null || base === null || base.n === 0n) return { rate: null, reason: null };
  if (current.n !== 0n && current.n < 0n !== base.n < 0n) return { rate: null, reason: 'sign_change' };
  if (scale !== null && scale.n > 0n && qcmp(qpct(qabs(base), scale)!, { n: 5n, d: 10n }) < 0)
    return { rate: null, reason: 'tiny_base' };
  return { rate: qchange(current, base), reason: null };
}

/** Half away from zero to 2 decimals, as decimal text. */
export function r2text(a: Q): string {
  const abs = a.n < 0n ? -a.n : a.n;
  const cents = (abs * 200n + a.d) / (2n * a.d);
  const neg = a.n < 0n && cents !== 0n;
  const s = cents.toString().padStart(3, '0');
  return `${neg ? '-' : ''}${s.slice(0, -2)}.${s.slice(-2)}`;
}
export const r2 = (a: R): number | null => (a === null ? null : Number(r2text(a)));

// raw fixture access

export function rawAccess(raw: RawSubmission) {
  const sheetItems = (year: number, sheet: SheetType) =>
    raw.years_data.find((y) => y.year === year)?.sheets.find((s) => s.sheet_type === sheet)?.items;
  const item = (year: number, sheet: SheetType, key: string) =>
    sheetItems(year, sheet)?.find((i) => i.item_name === key);
  const opt = (v: string | undefined): R => (v === undefined ? null : q(v));
  return {
    standard: raw.accounting_standard,
    years: raw.years_data.map((y) => y.year),
    hasSheet: (year: number, sheet: SheetType) => sheetItems(year, sheet) !== undefined,
    /** Item keys of one sheet of one year, in input order. */
    keys: (year: number, sheet: SheetType) => (sheetItems(year, sheet) ?? []).map((i) => i.item_name),
    inc: (year: number, key: string) => opt(item(year, 'income', key)?.current_year_amount),
    incLast: (year: number, key: string) => opt(item(year, 'income', key)?.last_year_amount),
    cf: (year: number, key: string) => opt(item(year, 'cash_flow', key)?.current_year_amount),
    cfLast: (year: number, key: string) => opt(item(year, 'cash_flow', key)?.last_year_amount),
    end: (year: number, key: string) => opt(item(year, 'balance', key)?.ending_balance),
    begin: (year: number, key: string) => opt(item(year, 'balance', key)?.beginning_balance),
    avg: (year: number, key: string) =>
      qavg(
        opt(item(year, 'balance', key)?.beginning_balance),
        opt(item(year, 'balance', key)?.ending_balance),
      ),
    balanceItems: (year: number) => sheetItems(year, 'balance') ?? [],
  };
}
export type Raw = ReturnType<typeof rawAccess>;

/** Lines of one sheet for a hand-made report: a bare string is a current amount with no previous column. */
export type Lines = Record<string, string | [current: string, previous: string | null]>;
export type YearInput = Partial<Record<SheetType, Lines>>;

/** Builds a NormalisedReport from compact per-year lines (for edge cases the fixtures do not cover). */
export function makeReport(
  years: Record<number, YearInput>,
  options: { standard?: NormalisedReport['standard']; info?: EnterpriseInfo | null } = {},
): NormalisedReport {
  return {
    enterpriseName: '测试企业',
    standard: options.standard ?? 'general_new',
    enterpriseInfo: options.info ?? null,
    years: Object.entries(years).map(([year, sheets]) => ({
      year: Number(year),
      sheets: Object.fromEntries(
        Object.entries(sheets).map(([sheet, lines]) => {
          const out: SheetLines = {};
          for (const [key, v] of Object.entries(lines ?? {})) {
            out[key] =
              typeof v === 'string' ? { current: v, previous: null } : { current: v[0], previous: v[1] };
          }
          return [sheet, out];
        }),
      ),
    })),
  };
}
