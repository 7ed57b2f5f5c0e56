/**
 * `npm run bench`: submit → success latency at 1 and 16 clients, sustained reports per second, and the
 * engine in the Piscina pool against the same engine on the main thread, and the production layout (an api and a
 * worker process) against one process — all on one machine, in one run,
 * against PostgreSQL (DATABASE_URL, or the local server) with the AI step off, on a 6-year submission, with every
 * capability on (lib.ts withService). Also the engine alone in process (the floor), the stored bytes per report and
 * the cost of a conditional read.
 *
 * `npm run bench -- --against <git ref>` instead runs this build and the other ref's alternately (against.ts).
 * Figures go to stdout. Nothing here is a test.
 */
import { availableParallelism, cpus } from 'node:os';
import { compareAgainst } from './against.ts';
import { benchBenchmarks } from './benchmarks.ts';
import { engineCpuPerReport } from './engine.ts';
import {
  agent,
  BODY,
  closedLoop,
  conditionalReadCost,
  DURATION_MS,
  percentile,
  type Run,
  storagePerReport,
  sustained,
  webhookReceiver,
  withService,
} from './lib.ts';

const args = process.argv.slice(2);
const againstAt = args.indexOf('--against');
const against = againstAt >= 0 ? args[againstAt + 1] : undefined;
if (againstAt >= 0 && !against) throw new Error('--against needs a git ref');

function describe(label: string, run: Run) {
  const l = run.latencies;
  return {
    label,
    reports: run.completed,
    p50: percentile(l, 50),
    p95: percentile(l, 95),
    p99: percentile(l, 99),
    perSecond: (run.completed / run.elapsedMs) * 1000,
    cpu: run.cpu,
    db: run.db,
  };
}

const threads = availableParallelism();
console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.versions.node}; ` +
    `6-year general_new submission (${Math.round(BODY.length / 1024)} kB), AI off; ${DURATION_MS / 1000} s per run`,
);
// The floor first, while nothing else of the bench runs: the engine alone, in this process.
const engineMs = engineCpuPerReport();
console.log(`engine alone, in process (one thread, warm): ${engineMs.toFixed(2)} ms CPU per report`);

if (against) {
  await compareAgainst(against, { clean: args.includes('--clean'), engineMs });
} else {
  await fullRun();
}
agent.destroy();

async function fullRun() {
  const rows: ReturnType<typeof describe>[] = [];
  let storage: Awaited<ReturnType<typeof storagePerReport>> | null = null;
  let reads: Awaited<ReturnType<typeof conditionalReadCost>> | null = null;
  for (const [mode, poolThreads, split] of [
    [`pool (${threads} threads)`, threads, false],
    ['inline (main thread)', 0, false],
    [`separate roles: 1 api + 1 worker (pool, ${threads} threads)`, threads, true],
  ] as const) {
    const receiver = await webhookReceiver();
    await withService({ poolThreads, split, webhookUrl: receiver.url }, async (service) => {
      const { url, key } = service;
      const phase = async (label: string, run: () => Promise<Run>) => {
        const row = describe(`${mode}, ${label}`, await run());
        console.log(
          `  ${row.label}: ${row.reports} reports, p50 ${row.p50.toFixed(1)} ms, ${row.perSecond.toFixed(1)}/s`,
        );
        rows.push(row);
      };
      await closedLoop(url, key, 4, 10); // warm-up: JIT, connection pools, worker threads
      await phase('1 client', () => closedLoop(url, key, 1, 5));
      await phase('16 clients', () => closedLoop(url, key, 16, 25));
      await phase('sustained (16 submitters)', () => sustained(service, 16, receiver.received));
      if (!storage) {
        reads = await conditionalReadCost(service);
        storage = await storagePerReport(service.databaseUrl);
      }
    });
    await receiver.close();
  }

  const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '—');
  console.log('\n| run | reports | p50 ms | p95 ms | p99 ms | reports/s |');
  console.log('|---|---|---|---|---|---|');
  for (const row of rows) {
    console.log(
      `| ${row.label} | ${row.reports} | ${fmt(row.p50)} | ${fmt(row.p95)} | ${fmt(row.p99)} | ${fmt(row.perSecond)} |`,
    );
  }
  console.log(
    `\npool ÷ inline, reports/s: 16 clients ${(rows[1]!.perSecond / rows[4]!.perSecond).toFixed(2)}, ` +
      `sustained ${(rows[2]!.perSecond / rows[5]!.perSecond).toFixed(2)}`,
  );
  console.log(
    `separate roles ÷ one process (pool), reports/s: 16 clients ${(rows[7]!.perSecond / rows[1]!.perSecond).toFixed(2)}, ` +
      `sustained ${(rows[8]!.perSecond / rows[2]!.perSecond).toFixed(2)}`,
  );
  console.log(
    '(1 and 16 clients: client-observed submit → success, polling; sustained: server-side created → completed)',
  );
  console.log(
    '\nCPU ms per report, sustained runs (the load generator is this process, on the same machine), and the whole ÷ the engine alone:',
  );
  console.log(
    '| run | service main thread | service other threads (of which the pool) | PostgreSQL | service + PostgreSQL | ÷ engine | ÷ pool | load generator | transactions / rows written per report | machine idle / steal (idle while reports ran) |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const { label, cpu, db } of rows.filter((row) => row.cpu)) {
    const c = cpu!;
    const whole = c.serviceMain + c.serviceOther + c.postgres;
    console.log(
      `| ${label} | ${fmt(c.serviceMain)} | ${fmt(c.serviceOther)} (${fmt(c.servicePool)}) | ${fmt(c.postgres)} | ${fmt(whole)} | ${fmt(whole / engineMs, 2)} | ${c.servicePool > 0 ? fmt(whole / c.servicePool, 2) : '—'} | ${fmt(c.loadGenerator)} | ${fmt(db!.transactions)} / ${fmt(db!.rowsWritten)} | ${fmt(c.idlePct)} % / ${fmt(c.stealPct)} % (${fmt(c.reportsIdlePct)} %) |`,
    );
  }
  if (storage) {
    const s = storage as Awaited<ReturnType<typeof storagePerReport>>;
    console.log(
      `\nPostgreSQL bytes per stored report after VACUUM (${s.reports} reports of the pool run): report tables ${fmt(s.report, 0)}, pg-boss job tables ${fmt(s.jobs, 0)}`,
    );
    console.log('| table | total | table | TOAST | indexes |');
    console.log('|---|---|---|---|---|');
    for (const t of s.tables)
      console.log(
        `| ${t.table} | ${fmt(t.total, 0)} | ${fmt(t.heap, 0)} | ${fmt(t.toast, 0)} | ${fmt(t.indexes, 0)} |`,
      );
  }
  if (reads) {
    const r = reads as Awaited<ReturnType<typeof conditionalReadCost>>;
    console.log(
      `\nreads of a finished report, service CPU per request (one at a time): 304 on If-None-Match ${fmt(r.notModified?.serviceMs ?? Number.NaN, 3)} ms` +
        ` (PostgreSQL ${fmt(r.notModified?.postgresMs ?? Number.NaN, 3)} ms), 200 ${fmt(r.full?.serviceMs ?? Number.NaN, 3)} ms (PostgreSQL ${fmt(r.full?.postgresMs ?? Number.NaN, 3)} ms)`,
    );
  }
}

// ---- Industry benchmarking (docs/benchmarks.md): matching and peer statistics per report, measured apart. ----
await benchBenchmarks();
