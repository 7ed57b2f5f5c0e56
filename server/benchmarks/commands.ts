/**
 * `npm run cli -- benchmarks …` (server/cli.ts): import, list, show and retire benchmark sets from the shell.
 * Returns the lines to print; errors are thrown (AppError subclasses name what is wrong, line by line).
 */
import { createReadStream } from 'node:fs';
import type { EntityManager } from '@mikro-orm/postgresql';
import { readBenchmarkCsv } from './csv.ts';
import { importBenchmarkSet, listBenchmarkSets, retireBenchmarkSet, showBenchmarkSet } from './sets.ts';
import type { BenchmarkSet } from './types.ts';

export const BENCHMARKS_USAGE = `  npm run cli -- benchmarks import <file.csv> --name <name> --source <source> --edition <edition> --data-year <year> [--licence <note>]
  npm run cli -- benchmarks list [--all]
  npm run cli -- benchmarks show <set id>
  npm run cli -- benchmarks retire <set id>`;

export interface BenchmarkOptions {
  name?: string;
  source?: string;
  edition?: string;
  'data-year'?: string;
  licence?: string;
  all?: boolean;
}

const describe = (set: Omit<BenchmarkSet, 'rows'>, rows: number) =>
  `${set.id}  ${set.name} · ${set.edition} · 数据年度 ${set.data_year ?? '未注明'} · ${rows} rows` +
  `${set.builtin ? ' · built-in' : ''}${set.retired_at ? ` · retired ${set.retired_at.toISOString()}` : ''}`;

const cell = (v: number | null | undefined) => (v === null || v === undefined ? '' : String(v));

/** Runs one benchmarks subcommand; null when the arguments do not form one (the caller prints the usage). */
export async function runBenchmarksCommand(
  em: EntityManager,
  command: string | undefined,
  args: readonly string[],
  options: BenchmarkOptions,
): Promise<string[] | null> {
  if (command === 'import' && args.length === 1) {
    const dataYear = options['data-year'];
    const rows = await readBenchmarkCsv(createReadStream(args[0]!));
    const set = await importBenchmarkSet(
      em,
      {
        name: options.name ?? '',
        source: options.source ?? '',
        edition: options.edition ?? '',
        dataYear: dataYear === undefined ? null : /^\d{4}$/.test(dataYear) ? Number(dataYear) : Number.NaN,
        licence: options.licence ?? null,
      },
      rows,
    );
    return [`Loaded ${describe(set, set.rows.length)}.`];
  }
  if (command === 'list' && args.length === 0) {
    const sets = await listBenchmarkSets(em, options.all === true);
    return sets.map((s) => describe(s, s.row_count));
  }
  if ((command === 'show' || command === 'retire') && args.length === 1) {
    const set =
      command === 'show' ? await showBenchmarkSet(em, args[0]!) : await retireBenchmarkSet(em, args[0]!);
    if (command === 'retire')
      return [`Retired ${describe(set, set.rows.length)}: reports computed from now on do not use it.`];
    return [
      describe(set, set.rows.length),
      `source: ${set.source}`,
      `licence: ${set.licence ?? '—'}`,
      'line,industry_code,size_class,indicator,excellent,good,average,low,poor,p10,p25,p50,p75,p90,n,mean',
      ...set.rows.map((r) =>
        [
          r.line,
          r.industry_code,
          r.size_class,
          r.indicator,
          ...(r.bands ?? [null, null, null, null, null]).map(cell),
          ...(r.quantiles
            ? [r.quantiles.p10, r.quantiles.p25, r.quantiles.p50, r.quantiles.p75, r.quantiles.p90]
            : [null, null, null, null, null]
          ).map(cell),
          cell(r.n),
          cell(r.mean),
        ].join(','),
      ),
    ];
  }
  return null;
}
