/**
 * The benchmark side of a report's job, measured on its own (`npm run bench` runs it last; `node
 * test/bench/benchmarks.ts` alone): matching the sets and reading the peers' distribution before computing
 * (`benchmarkForReport`), and recording the sets used and the report's peer values in the assemble transaction
 * (`recordPeerValues`; the sets used are written by the assemble statement itself), against an account that already holds PEERS enterprises in the report's division
 * (and as many in each of nine other divisions) with a loaded set. Compared with the engine's own time for the
 * same report, on the main thread, in the same run. BENCH_PEERS (500) and BENCH_MATCH_ROUNDS (200) size it.
 * Figures for docs and the note, never a test.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { validateSubmission } from '../../schema/submission.ts';
import { readBenchmarkCsv } from '../../server/benchmarks/csv.ts';
import { benchmarkForReport, recordPeerValues } from '../../server/benchmarks/forReport.ts';
import { importBenchmarkSet } from '../../server/benchmarks/sets.ts';
import { migrate, openDatabase } from '../../server/db/database.ts';
import { runSql } from '../../server/db/sql.ts';
import { computeItems, withCoreRiskInsight } from '../../worker/computed.ts';
import { ANALYSIS_SLUGS } from '../../worker/engine/registry.ts';
import { utf8Text } from '../../worker/jsonBytes.ts';
import { normaliseSubmission } from '../../worker/normalise.ts';
import { syntheticSubmission } from '../fixtures/synthetic.ts';
import { createTestDatabase } from '../helpers/database.ts';

const PEERS = Number(process.env.BENCH_PEERS ?? 500);
// Not BENCH_ROUNDS: that sets the --against run's rounds (2 or 3), which left this figure a median of 2 or 3.
const ROUNDS = Number(process.env.BENCH_MATCH_ROUNDS ?? 200);

const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function benchBenchmarks(): Promise<void> {
  const testDb = await createTestDatabase('postgres');
  const db = await openDatabase({ databaseUrl: testDb.databaseUrl, dataDir: testDb.dataDir });
  try {
    await migrate(db.orm);
    const em = db.orm.em.fork();
    const account = randomUUID();
    const now = new Date();
    await runSql(em, `insert into accounts (id, email, created_at) values ($1, $2, $3)`, [
      account,
      'bench@example.com',
      now,
    ]);
    // PEERS enterprises with one successful report each in C38 and nine other divisions, 2024, nine values each.
    await runSql(
      em,
      `with e as (
         insert into enterprises (id, account_id, mode, name, report_count, created_at, updated_at)
         select gen_random_uuid(), $1, 'test', 'peer ' || d || '-' || i, 1, $2, $2
           from generate_series(30, 39) d, generate_series(1, $3::int) i
         returning id, name
       ), r as (
         insert into reports (id, account_id, mode, enterprise_id, version_no, name, accounting_standard, year_start,
           year_end, ai_auto_analysis, validation_warnings, status, created_at, updated_at, completed_at)
         select gen_random_uuid(), $1, 'test', e.id, 1, e.name, 'general_new', 2020, 2024, false, '[]', 'success', $2, $2, $2
           from e returning id, enterprise_id, name
       )
       insert into peer_values (report_id, account_id, mode, industry_code, year, enterprise_id, indicator, value, completed_at)
       select r.id, $1, 'test', 'C' || split_part(substr(r.name, 6), '-', 1), 2024, r.enterprise_id, k.indicator, random() * 100, $2
         from r, unnest(array['long_term_liability.debt_to_asset_ratio', 'long_term_liability.interest_coverage',
           'short_term_liability.quick_ratio', 'short_term_liability.cash_flow_liability_ratio', 'profitability.roe',
           'business_input_profitability.total_asset_return', 'comparative.ocf_to_net_profit',
           'growth_quality_analysis.revenue_change_rate', 'shareholder_equity.capital_preservation_ratio']) as k(indicator)`,
      [account, now, PEERS],
    );
    await importBenchmarkSet(
      em,
      { name: 'bench set', source: 'bench', edition: '1', dataYear: 2023 },
      await readBenchmarkCsv(
        [
          'industry_code,size_class,indicator,excellent,good,average,low,poor,p10,p25,p50,p75,p90,n,mean',
          'C38,all,long_term_liability.debt_to_asset_ratio,40,50,60,68,75,,,,,,,',
          'C38,all,profitability.roe,14,10,6,2,-3,,,,,,,',
          'C,all,reporting_period_profit.total_profit_margin,,,,,,1,3,6,9,14,300,',
        ].join('\n'),
      ),
    );
    await runSql(em, 'analyze');

    // The report under test: the bench's synthetic 6-year submission, as a C38 enterprise of the same account.
    const raw = syntheticSubmission({ years: 6, lastYear: 2024 }) as Record<string, unknown>;
    raw.enterprise_info = { industry_division_code: 'C38', employee_count: '800', is_sme: 0 };
    const validation = validateSubmission(raw);
    if (!validation.ok) throw new Error('synthetic submission invalid');
    const payload = JSON.stringify(normaliseSubmission(validation.value).report);
    const enterprise = randomUUID();
    const report = randomUUID();
    await runSql(
      em,
      `insert into enterprises (id, account_id, mode, name, report_count, created_at, updated_at) values ($1, $2, 'test', 'subject', 1, $3, $3)`,
      [enterprise, account, now],
    );
    await runSql(
      em,
      `insert into reports (id, account_id, mode, enterprise_id, version_no, name, accounting_standard, year_start,
         year_end, ai_auto_analysis, validation_warnings, status, created_at, updated_at)
       values ($1, $2, 'test', $3, 1, 'subject', 'general_new', 2019, 2024, false, '[]', 'pending', $4, $4)`,
      [report, account, enterprise, now],
    );

    const match: number[] = [];
    const record: number[] = [];
    const engine: number[] = [];
    let peersSeen = 0;
    for (let round = 0; round < ROUNDS; round++) {
      let t = performance.now();
      const matched = await benchmarkForReport(em, payload, 10, {
        accountId: account,
        mode: 'test',
        enterpriseId: enterprise,
      });
      match.push(performance.now() - t);
      peersSeen = Object.values(matched.benchmark.peers ?? {})[0]?.n ?? 0;
      t = performance.now();
      const items = withCoreRiskInsight(computeItems(payload, ANALYSIS_SLUGS), matched.benchmark);
      engine.push(performance.now() - t);
      const json = utf8Text(items.find((i) => i.slug === 'industry_benchmark')!.spResultUtf8);
      // Inside a transaction, without its commit: in the job these writes share the assemble transaction's.
      await em.transactional(async (tx) => {
        const start = performance.now();
        await recordPeerValues(tx, report, matched, json, new Date());
        record.push(performance.now() - start);
      });
    }
    const fmt = (v: number) => v.toFixed(2);
    console.log(
      `\nBenchmark matching and peers (${ROUNDS} rounds; ${PEERS} peer enterprises in the report's division, ` +
        `${PEERS * 10} over ten divisions; peers seen n=${peersSeen}; medians, one process, shared machine):`,
    );
    console.log('| step | ms per report |');
    console.log('|---|---|');
    console.log(`| match sets + peer distribution (before compute) | ${fmt(median(match))} |`);
    console.log(
      `| record sets used + peer values (in the assemble transaction, before its commit) | ${fmt(median(record))} |`,
    );
    console.log(`| the engine on the same report, main thread (for scale) | ${fmt(median(engine))} |`);
  } finally {
    await db.close();
    await testDb.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchBenchmarks();
