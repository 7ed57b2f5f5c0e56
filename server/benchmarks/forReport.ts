/**
 * The benchmark side of the analysis job: before computing, the report's matched benchmark (sets and peers); in
 * the assemble statement, the record of the sets it used and its peer values. Peer values are kept per report
 * (one row per scored indicator, deleted with the report by its foreign key), so a report that succeeds or is
 * deleted changes only its own rows; the distribution is computed when a report reads it, with one aggregate
 * query over the latest successful report of each other enterprise of the account, mode, industry and year.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { MatchedBenchmark, PeerDistribution } from '../../worker/engine/benchmark.ts';
import { INDUSTRY_BENCHMARK_SLUG, SCORED_INDICATORS } from '../../worker/engine/industryBenchmark.ts';
import { utf8Text } from '../../worker/jsonBytes.ts';
import type { NormalisedReport } from '../../worker/types.ts';
import { prepared } from '../db/prepared.ts';
import { runSql } from '../db/sql.ts';
import type { ReadCache } from '../services/readCache.ts';
import { matchBenchmark, resolveIndustry } from './match.ts';
import { setsForIndustry } from './sets.ts';

export const PEER_INDICATORS: readonly string[] = SCORED_INDICATORS.map((i) => `${i.slug}.${i.key}`);

/** What the job needs to record after computing. */
export interface ReportBenchmark {
  benchmark: MatchedBenchmark;
  /** Where the report's own values join the peers: null when its industry is unknown. */
  peerKey: {
    accountId: string;
    mode: string;
    industryCode: string;
    year: number;
    enterpriseId: string;
  } | null;
}

/**
 * The peers' distribution per indicator: over the latest successful report (by completion) of each enterprise
 * other than this one, in one statement — one index range scan, no join. Quantiles are withheld below `minimum`.
 */
const PEERS_SQL = prepared(`
  select indicator, count(*)::int as n,
         percentile_cont(array[0.1, 0.25, 0.5, 0.75, 0.9]) within group (order by value) as q
    from (select indicator, value, completed_at,
                 max(completed_at) over (partition by enterprise_id) as latest
            from peer_values
           where account_id = $1 and mode = $2 and industry_code = $3 and year = $4 and enterprise_id <> $5) as peers
   where completed_at = latest
   group by indicator`);

export async function peerDistributions(
  em: EntityManager,
  key: NonNullable<ReportBenchmark['peerKey']>,
  minimum: number,
): Promise<Record<string, PeerDistribution>> {
  const rows = await runSql<{ indicator: string; n: number; q: number[] }>(em, PEERS_SQL, [
    key.accountId,
    key.mode,
    key.industryCode,
    key.year,
    key.enterpriseId,
  ]);
  const byIndicator = new Map(rows.map((r) => [r.indicator, r]));
  const round = (v: number) => Math.round(v * 100) / 100;
  return Object.fromEntries(
    PEER_INDICATORS.map((indicator) => {
      const row = byIndicator.get(indicator);
      const n = row?.n ?? 0;
      const q = row && n >= minimum ? row.q.map(round) : null;
      return [
        indicator,
        {
          industry_code: key.industryCode,
          year: key.year,
          n,
          minimum,
          quantiles: q ? { p10: q[0]!, p25: q[1]!, p50: q[2]!, p75: q[3]!, p90: q[4]! } : null,
        },
      ];
    }),
  );
}

/**
 * The matched benchmark of a report about to be computed. `payload`: JSON text of its normalised submission, or
 * of that submission's enterpriseInfo and last year only (`years` of one) — all the match reads.
 */
export async function benchmarkForReport(
  em: EntityManager,
  payload: string,
  peerMinimum: number,
  owner: { accountId: string; mode: string; enterpriseId: string },
  cache?: ReadCache,
): Promise<ReportBenchmark> {
  const report = JSON.parse(payload) as Pick<NormalisedReport, 'enterpriseInfo' | 'years'>;
  const industry = resolveIndustry(report.enterpriseInfo);
  const code = industry.code;
  const codes = code
    ? [
        code.section,
        ...(code.division ? [`${code.section}${code.division}`] : []),
        ...(code.group ? [`${code.section}${code.group}`] : []),
      ]
    : [];
  const year = report.years.at(-1)?.year;
  // Peers at 大类 level (a 中类 code joins its 大类), else at the 门类 given.
  const peerKey =
    code && year !== undefined
      ? {
          accountId: owner.accountId,
          mode: owner.mode,
          industryCode: code.division ? `${code.section}${code.division}` : code.section,
          year,
          enterpriseId: owner.enterpriseId,
        }
      : null;
  const [sets, peers] = await Promise.all([
    setsForIndustry(em, codes, cache),
    peerKey ? peerDistributions(em, peerKey, peerMinimum) : Promise.resolve(null),
  ]);
  return { benchmark: matchBenchmark(report, industry, sets, peers), peerKey };
}

/**
 * What the assemble statement records of the report's benchmark, from industry_benchmark's sp_result (JSON text,
 * parsed once): the sets it used, and its peer values (docs/benchmarks.md) as rows for PEER_VALUES_INSERT_SQL — none
 * when its industry is unknown or it has no scored value. Both JSON arrays.
 */
export function benchmarkRecord(
  prepared_: ReportBenchmark,
  benchmarkJson: string | null,
): { setsUsed: string; peerRows: string } {
  if (!benchmarkJson) return { setsUsed: '[]', peerRows: '[]' };
  const sp = JSON.parse(benchmarkJson) as {
    sets_used?: unknown[];
    rows: { indicator: string; value: number | null }[];
  };
  const key = prepared_.peerKey;
  const peerRows = key
    ? sp.rows
        .filter((r) => r.value !== null && PEER_INDICATORS.includes(r.indicator))
        .map((v) => ({
          account_id: key.accountId,
          mode: key.mode,
          industry_code: key.industryCode,
          year: key.year,
          enterprise_id: key.enterpriseId,
          indicator: v.indicator,
          value: v.value,
        }))
    : [];
  return { setsUsed: JSON.stringify(sp.sets_used ?? []), peerRows: JSON.stringify(peerRows) };
}

/**
 * Writes benchmarkRecord's `peerRows` (SQL of a jsonb array) for report `reportId` at `completedAt` (SQL expressions): a
 * retried attempt overwrites its own rows. The assemble statement runs it as one of its CTEs.
 */
export const PEER_VALUES_INSERT_SQL = (reportId: string, rows: string, completedAt: string) => `
  insert into peer_values (report_id, account_id, mode, industry_code, year, enterprise_id, indicator, value, completed_at)
  select ${reportId}, v.account_id, v.mode, v.industry_code, v.year, v.enterprise_id, v.indicator, v.value, ${completedAt}
    from jsonb_to_recordset(${rows}) as v(account_id uuid, mode text, industry_code text, year int, enterprise_id uuid,
                                           indicator text, value double precision)
  on conflict (report_id, indicator) do update set value = excluded.value, completed_at = excluded.completed_at`;

/** The report's peer values on their own (the job writes them in its assemble statement; used by the bench). */
export async function recordPeerValues(
  tx: EntityManager,
  reportId: string,
  prepared_: ReportBenchmark,
  benchmarkJson: string,
  completedAt: Date,
): Promise<void> {
  await runSql(tx, PEER_VALUES_INSERT_SQL('$1', '$2::jsonb', '$3'), [
    reportId,
    benchmarkRecord(prepared_, benchmarkJson).peerRows,
    completedAt,
  ]);
}

/** The industry_benchmark item's sp_result JSON among the job's items. */
export function industryBenchmarkJson(
  items: readonly { slug: string; spResultUtf8: Uint8Array }[],
): string | null {
  const item = items.find((i) => i.slug === INDUSTRY_BENCHMARK_SLUG);
  return item ? utf8Text(item.spResultUtf8) : null;
}
