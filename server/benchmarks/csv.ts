/**
 * Reads a benchmark set's rows from CSV (docs/benchmarks.md "CSV format") with csv-parse, streaming, and
 * validates every row: each problem names its line and column and says why. Nothing is returned unless every row
 * is valid, so a set is never loaded in part.
 */
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { type Bands, type Quantiles, SIZE_CLASSES, type SizeClass } from '../../worker/engine/benchmark.ts';
import { analysisField } from '../../worker/engine/registry.ts';
import { type FieldProblem, MAX_FIELD_ERRORS, ValidationError } from '../errors.ts';
import { parseIndustryCode } from './gbt4754.ts';
import type { SetRow } from './types.ts';

const BAND_COLUMNS = ['excellent', 'good', 'average', 'low', 'poor'] as const;
const QUANTILE_COLUMNS = ['p10', 'p25', 'p50', 'p75', 'p90'] as const;
/** The columns every file's header must have (in any order; other columns are ignored). */
export const CSV_COLUMNS = [
  'industry_code',
  'size_class',
  'indicator',
  ...BAND_COLUMNS,
  ...QUANTILE_COLUMNS,
  'n',
  'mean',
] as const;

type Record_ = Record<string, string>;

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** The numbers of a group of columns: all empty → null; all filled and numeric → the numbers; else a problem. */
function numbers(
  record: Record_,
  columns: readonly string[],
  problem: (column: string, message: string) => void,
): number[] | null {
  const filled = columns.filter((c) => record[c] !== '');
  if (filled.length === 0) return null;
  if (filled.length < columns.length) {
    problem(
      columns.find((c) => record[c] === '')!,
      `${columns.join(', ')} are filled together: ${columns.filter((c) => record[c] === '').join(', ')} missing`,
    );
    return null;
  }
  const values = columns.map((c) => (NUMBER.test(record[c]!) ? Number(record[c]) : Number.NaN));
  const bad = columns.find((_, i) => !Number.isFinite(values[i]!));
  if (bad) {
    problem(bad, `not a number: "${record[bad]}"`);
    return null;
  }
  return values;
}

function validateRow(record: Record_, line: number, problems: FieldProblem[]): SetRow | null {
  const before = problems.length;
  const problem = (column: string, message: string) =>
    problems.push({ path: `line ${line}.${column}`, message });

  const rawCode = record.industry_code!;
  let industry_code = 'all';
  if (rawCode.toLowerCase() !== 'all') {
    const code = parseIndustryCode(rawCode);
    if (code) industry_code = code.canonical;
    else
      problem(
        'industry_code',
        `unknown industry code "${rawCode}": use all, a GB/T 4754-2017 门类 letter (C), 大类 (C38) or 中类 (C381)`,
      );
  }
  const size = record.size_class!.toLowerCase();
  if (!(SIZE_CLASSES as readonly string[]).includes(size))
    problem('size_class', `unknown size class "${record.size_class}": use one of ${SIZE_CLASSES.join(', ')}`);
  const indicator = record.indicator!;
  const [slug, key, ...extra] = indicator.split('.');
  if (!slug || !key || extra.length > 0 || !analysisField(slug, key))
    problem(
      'indicator',
      `unknown indicator "${indicator}": use <slug>.<key> of the analysis catalogue, e.g. long_term_liability.debt_to_asset_ratio`,
    );

  const bands = numbers(record, BAND_COLUMNS, problem);
  if (bands) {
    const falling = bands.every((b, i) => i === 0 || b < bands[i - 1]!);
    const rising = bands.every((b, i) => i === 0 || b > bands[i - 1]!);
    if (!falling && !rising)
      problem(
        'excellent',
        `bands out of order (${bands.join(', ')}): excellent → poor must fall strictly (higher is better) or rise strictly (lower is better)`,
      );
  }
  const quantiles = numbers(record, QUANTILE_COLUMNS, problem);
  if (quantiles && !quantiles.every((q, i) => i === 0 || q >= quantiles[i - 1]!))
    problem('p10', `quantiles out of order (${quantiles.join(', ')}): p10 ≤ p25 ≤ p50 ≤ p75 ≤ p90`);
  let n: number | null = null;
  if (record.n !== '') {
    n = /^\d+$/.test(record.n!) ? Number(record.n) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < 1) problem('n', `n must be a whole number ≥ 1, not "${record.n}"`);
  }
  if (quantiles && n === null)
    problem('n', 'quantiles need n (the number of enterprises they are taken over)');
  const mean = numbers(record, ['mean'], problem)?.[0] ?? null;
  if (!bands && !quantiles && mean === null && problems.length === before)
    problem('excellent', 'the row has no figures: fill the five bands, or p10–p90 with n, or mean');

  if (problems.length > before) return null;
  return {
    line,
    industry_code,
    size_class: size as SizeClass,
    indicator,
    bands: bands as unknown as Bands | null,
    quantiles: quantiles
      ? { p10: quantiles[0]!, p25: quantiles[1]!, p50: quantiles[2]!, p75: quantiles[3]!, p90: quantiles[4]! }
      : (null as Quantiles | null),
    n,
    mean,
    note: null,
  };
}

/**
 * The rows of a benchmark CSV (a stream or its whole text), every one valid, or a ValidationError listing each
 * problem as `line <n>.<column>` (at most MAX_FIELD_ERRORS listed).
 */
export async function readBenchmarkCsv(input: Readable | string): Promise<SetRow[]> {
  const problems: FieldProblem[] = [];
  const rows: SetRow[] = [];
  const seen = new Map<string, number>();
  const parser = parse({ bom: true, columns: true, trim: true, skip_empty_lines: true, info: true });
  let header: string[] | null = null;
  const feed =
    typeof input === 'string'
      ? (async () => {
          parser.end(input);
        })()
      : (async () => {
          input.pipe(parser);
        })();
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: Record_;
      info: { lines: number; columns: { name: string }[] };
    }>) {
      if (!header) {
        header = info.columns.map((c) => c.name);
        const missing = CSV_COLUMNS.filter((c) => !header!.includes(c));
        if (missing.length > 0) {
          problems.push({ path: 'line 1', message: `the header lacks ${missing.join(', ')}` });
          break;
        }
      }
      const row = validateRow(record, info.lines, problems);
      if (row) {
        const key = `${row.industry_code}|${row.size_class}|${row.indicator}`;
        const first = seen.get(key);
        if (first !== undefined)
          problems.push({
            path: `line ${row.line}`,
            message: `repeats line ${first} (${row.industry_code}, ${row.size_class}, ${row.indicator})`,
          });
        else {
          seen.set(key, row.line);
          rows.push(row);
        }
      }
      if (problems.length > MAX_FIELD_ERRORS) break;
    }
    await feed;
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    problems.push({
      path: line ? `line ${line}` : 'file',
      message: `not readable as CSV: ${(error as Error).message}`,
    });
  }
  if (problems.length === 0 && rows.length === 0)
    problems.push({ path: 'file', message: 'no rows: the file has a header and no data line' });
  if (problems.length > 0)
    throw new ValidationError(
      problems,
      `The benchmark file is invalid: ${problems.length} problem(s); see errors.`,
    );
  return rows;
}
