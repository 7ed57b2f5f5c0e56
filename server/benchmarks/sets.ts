/**
 * Benchmark sets: the built-in ones (builtinSets.ts) and those an operator loads from CSV. A loaded set never
 * changes — a new edition is a new set (name + edition unique) — and is retired rather than deleted, so the
 * record of the sets a report used keeps naming it.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Bands } from '../../worker/engine/benchmark.ts';
import { runSql } from '../db/sql.ts';
import { ConflictError, NotFoundError, ValidationError } from '../errors.ts';
import { isUuid } from '../lib/ids.ts';
import type { Principal } from '../services/apiKeys.ts';
import type { ServiceContext } from '../services/context.ts';
import { forgetBenchmarkSets, type ReadCache } from '../services/readCache.ts';
import { BUILTIN_SETS } from './builtinSets.ts';
import type { BenchmarkSet, SetIdentity, SetRow } from './types.ts';

export interface SetMetadata {
  name: string;
  source: string;
  edition: string;
  dataYear: number | null;
  licence?: string | null;
}

interface SetRecord extends SetIdentity {
  row_count: number;
  loaded_at: Date;
  retired_at: Date | null;
}

interface RowRecord {
  set_id: string;
  line: number;
  industry_code: string;
  size_class: SetRow['size_class'];
  indicator: string;
  excellent: number | null;
  good: number | null;
  average: number | null;
  low: number | null;
  poor: number | null;
  p10: number | null;
  p25: number | null;
  p50: number | null;
  p75: number | null;
  p90: number | null;
  n: number | null;
  mean: number | null;
}

const ROW_COLUMNS = 17;
const ROWS_PER_INSERT = 500;

function checkMetadata(meta: SetMetadata): void {
  const problems = [];
  for (const field of ['name', 'source', 'edition'] as const)
    if (!meta[field]?.trim()) problems.push({ path: field, message: `--${field} is required` });
  if (
    meta.dataYear !== null &&
    (!Number.isInteger(meta.dataYear) || meta.dataYear < 1990 || meta.dataYear > 2100)
  )
    problems.push({ path: 'data_year', message: '--data-year must be a year between 1990 and 2100' });
  if (problems.length > 0) throw new ValidationError(problems);
}

/** Loads a set and all its rows in one transaction: either the whole set exists afterwards or nothing does. */
export async function importBenchmarkSet(
  em: EntityManager,
  meta: SetMetadata,
  rows: readonly SetRow[],
): Promise<BenchmarkSet> {
  checkMetadata(meta);
  const id = randomUUID();
  const loadedAt = new Date();
  await em.transactional(async (tx) => {
    const [clash] = await runSql(tx, 'select id from benchmark_sets where name = $1 and edition = $2', [
      meta.name.trim(),
      meta.edition.trim(),
    ]);
    if (clash)
      throw new ConflictError(
        'benchmark_set_exists',
        `A set "${meta.name}" edition "${meta.edition}" is already loaded (${clash.id}); a new edition needs a new --edition.`,
      );
    await runSql(
      tx,
      `insert into benchmark_sets (id, name, source, edition, data_year, licence, row_count, loaded_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        id,
        meta.name.trim(),
        meta.source.trim(),
        meta.edition.trim(),
        meta.dataYear,
        meta.licence ?? null,
        rows.length,
        loadedAt,
      ],
    );
    for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
      const chunk = rows.slice(start, start + ROWS_PER_INSERT);
      const params: unknown[] = [];
      const values = chunk.map((row, i) => {
        params.push(
          id,
          row.line,
          row.industry_code,
          row.size_class,
          row.indicator,
          ...(row.bands ?? [null, null, null, null, null]),
          ...(row.quantiles
            ? [row.quantiles.p10, row.quantiles.p25, row.quantiles.p50, row.quantiles.p75, row.quantiles.p90]
            : [null, null, null, null, null]),
          row.n,
          row.mean,
        );
        return `(${Array.from({ length: ROW_COLUMNS }, (_, c) => `$${i * ROW_COLUMNS + c + 1}`).join(', ')})`;
      });
      await runSql(
        tx,
        `insert into benchmark_rows (set_id, line, industry_code, size_class, indicator, excellent, good, average,
           low, poor, p10, p25, p50, p75, p90, n, mean) values ${values.join(', ')}`,
        params,
      );
    }
  });
  forgetBenchmarkSets();
  return { id, ...metaOf(meta), builtin: false, loaded_at: loadedAt, retired_at: null, rows: [...rows] };
}

function metaOf(meta: SetMetadata) {
  return {
    name: meta.name.trim(),
    source: meta.source.trim(),
    edition: meta.edition.trim(),
    data_year: meta.dataYear,
    licence: meta.licence ?? null,
  };
}

function toRow(r: RowRecord): SetRow {
  const bands =
    r.excellent === null ? null : ([r.excellent, r.good, r.average, r.low, r.poor] as unknown as Bands);
  return {
    line: r.line,
    industry_code: r.industry_code,
    size_class: r.size_class,
    indicator: r.indicator,
    bands,
    quantiles: r.p10 === null ? null : { p10: r.p10, p25: r.p25!, p50: r.p50!, p75: r.p75!, p90: r.p90! },
    n: r.n,
    mean: r.mean,
    note: null,
  };
}

function toSet(s: SetRecord, rows: SetRow[]): BenchmarkSet {
  return { ...s, builtin: false, rows };
}

export interface SetSummary extends Omit<BenchmarkSet, 'rows'> {
  row_count: number;
  /** The indicators its rows cover, sorted. */
  indicators: string[];
  /** The industry codes its rows cover (`all`, `C`, `C38` …), sorted. */
  industry_codes: string[];
}

const distinct = (values: string[]) => [...new Set(values)].sort();

const summary = (set: BenchmarkSet): SetSummary => {
  const { rows, ...rest } = set;
  return {
    ...rest,
    row_count: rows.length,
    indicators: distinct(rows.map((r) => r.indicator)),
    industry_codes: distinct(rows.map((r) => r.industry_code)),
  };
};

/** Every set, loaded (newest first) then built-in; retired ones only when asked. */
export async function listBenchmarkSets(em: EntityManager, includeRetired = false): Promise<SetSummary[]> {
  const loaded = await runSql<SetRecord & { indicators: string[]; industry_codes: string[] }>(
    em,
    `select s.*,
            array(select distinct r.indicator from benchmark_rows r where r.set_id = s.id order by 1) as indicators,
            array(select distinct r.industry_code from benchmark_rows r where r.set_id = s.id order by 1) as industry_codes
       from benchmark_sets s ${includeRetired ? '' : 'where s.retired_at is null'}
      order by s.loaded_at desc, s.id`,
  );
  return [
    ...loaded.map((s): SetSummary => ({ ...s, builtin: false })),
    ...BUILTIN_SETS.map((set) => summary(set)),
  ];
}

/** One set with its rows. */
export async function showBenchmarkSet(em: EntityManager, id: string): Promise<BenchmarkSet> {
  const builtin = BUILTIN_SETS.find((s) => s.id === id);
  if (builtin) return builtin;
  if (!isUuid(id)) throw new NotFoundError('benchmark set', id);
  const [set] = await runSql<SetRecord>(em, 'select * from benchmark_sets where id = $1', [id]);
  if (!set) throw new NotFoundError('benchmark set', id);
  const rows = await runSql<RowRecord>(em, 'select * from benchmark_rows where set_id = $1 order by line', [
    id,
  ]);
  return toSet(set, rows.map(toRow));
}

/** Retires a loaded set: reports computed from now on no longer use it; earlier reports keep what they showed. */
export async function retireBenchmarkSet(em: EntityManager, id: string): Promise<BenchmarkSet> {
  if (BUILTIN_SETS.some((s) => s.id === id))
    throw new ConflictError(
      'benchmark_set_builtin',
      `"${id}" is shipped with the service and cannot be retired.`,
    );
  const set = await showBenchmarkSet(em, id);
  if (set.retired_at) return set;
  const retiredAt = new Date();
  await runSql(em, 'update benchmark_sets set retired_at = $2 where id = $1', [id, retiredAt]);
  forgetBenchmarkSets();
  return { ...set, retired_at: retiredAt };
}

/**
 * The active sets with only their rows for the given industry codes (and `all`): what matching a report needs.
 * Loaded sets first (newest first), then the built-in ones.
 */
export async function setsForIndustry(
  em: EntityManager,
  codes: readonly string[],
  /** This process's read cache: the sets read for the same codes within its 10 s, unless a set changed since. */
  cache?: ReadCache,
): Promise<readonly BenchmarkSet[]> {
  const wanted = new Set(['all', ...codes]);
  const key = [...wanted].sort().join(' ');
  const known = cache?.benchmarkSets(key);
  if (known) return known;
  const generation = cache?.generation() ?? 0;
  const sets = await readSetsForIndustry(em, wanted);
  cache?.rememberBenchmarkSets(key, sets, generation);
  return sets;
}

async function readSetsForIndustry(em: EntityManager, wanted: ReadonlySet<string>): Promise<BenchmarkSet[]> {
  const builtins = BUILTIN_SETS.map((set) => ({
    ...set,
    rows: set.rows.filter((r) => wanted.has(r.industry_code)),
  }));
  const rows = await runSql<RowRecord & SetRecord>(
    em,
    `select s.id, s.name, s.source, s.edition, s.data_year, s.licence, s.row_count, s.loaded_at, s.retired_at, r.*
       from benchmark_rows r join benchmark_sets s on s.id = r.set_id
      where s.retired_at is null and r.industry_code = any($1::text[])
      order by s.loaded_at desc, s.id, r.line`,
    [[...wanted]],
  );
  const loaded = new Map<string, BenchmarkSet>();
  for (const r of rows) {
    let set = loaded.get(r.id);
    if (!set) {
      set = toSet(
        {
          id: r.id,
          name: r.name,
          source: r.source,
          edition: r.edition,
          data_year: r.data_year,
          licence: r.licence,
          row_count: r.row_count,
          loaded_at: r.loaded_at,
          retired_at: r.retired_at,
        },
        [],
      );
      loaded.set(r.id, set);
    }
    set.rows.push(toRow(r));
  }
  return [...loaded.values(), ...builtins];
}

/**
 * The sets a report can be computed against (`GET /benchmarks`, GraphQL `benchmarkSets`): every active set. Sets
 * are the service's, the same for every account: an authenticated principal is all it takes to read them.
 */
export async function listUsableBenchmarkSets(
  ctx: ServiceContext,
  _principal: Principal,
): Promise<SetSummary[]> {
  return listBenchmarkSets(ctx.db.orm.em.fork());
}
