/**
 * `npm run bench`: submit → success latency at 1 and 16 clients, sustained reports per second, and the
 * engine in the Piscina pool against the same engine on the main thread, and the production layout (an api and a
 * worker process) against one process — all on one machine, in one run,
 * against PostgreSQL (DATABASE_URL, or the local server) with the AI step off, on a 6-year submission.
 * Figures go to stdout (and, with --markdown, as a table for docs/performance.md). Nothing here is a test.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism, cpus } from 'node:os';
import pg from 'pg';
import { syntheticSubmission } from '../fixtures/synthetic.ts';
import { runCli, startChildService } from '../helpers/process.ts';
import { benchBenchmarks } from './benchmarks.ts';

const ADMIN_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const BODY = Buffer.from(JSON.stringify(syntheticSubmission({ years: 6, lastYear: 2024 })));
const DURATION_MS = Number(process.env.BENCH_SECONDS ?? 15) * 1000;

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * The load generator's HTTP client: node:http with keep-alive and the body encoded once. It runs on the same two
 * cores as the service and PostgreSQL, so its own cost counts against the throughput it measures: `fetch` (undici)
 * cost 1.0–1.1 ms of CPU per submission here, this 0.2–0.35 ms.
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function request(
  base: string,
  path: string,
  key: string,
  body?: Buffer,
): Promise<{ status: number; text: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: body ? 'POST' : 'GET',
        headers: body
          ? { 'Content-Type': 'application/json', 'Content-Length': body.length, 'X-API-Key': key }
          : { 'X-API-Key': key },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

interface Run {
  latencies: number[];
  completed: number;
  elapsedMs: number;
  /** CPU ms per report (Linux /proc), sustained runs only. */
  cpu?: CpuPerReport;
}

interface CpuPerReport {
  serviceMain: number;
  serviceOther: number;
  postgres: number;
  /** This process: the 16 submitters and the completion poll. */
  loadGenerator: number;
  /** Share of the machine's CPU time (all cores) that was idle, and stolen by the hypervisor, during the run (%). */
  idlePct: number;
  stealPct: number;
}

/** The machine's CPU time so far, from the first line of /proc/stat (in clock ticks). */
function machineTicks(): { total: number; idle: number; steal: number } {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = fields.map(Number) as number[];
  return {
    total: user! + nice! + system! + idle! + iowait! + irq! + softirq! + steal!,
    idle: idle! + iowait!,
    steal: steal!,
  };
}

/** CPU seconds a process or thread has used so far (utime + stime from /proc; clock ticks of 10 ms). */
function cpuSeconds(statPath: string): number {
  try {
    const fields = readFileSync(statPath, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0; // the process or thread has gone
  }
}

/** CPU used so far by the service's main threads, by their other threads, and by every PostgreSQL process. */
function cpuSnapshot(servicePids: number[]) {
  if (!existsSync('/proc/self/stat')) return null;
  let total = 0;
  let main = 0;
  for (const pid of servicePids) {
    total += cpuSeconds(`/proc/${pid}/stat`);
    main += cpuSeconds(`/proc/${pid}/task/${pid}/stat`);
  }
  let postgres = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('postgres'))
        postgres += cpuSeconds(`/proc/${pid}/stat`);
    } catch {
      // gone meanwhile
    }
  }
  return { main, other: total - main, postgres, machine: machineTicks() };
}

/**
 * Runs `node server/main.ts` as its own process (as in production), so the load generator here does not share
 * the server's event loop; the key comes from the CLI. `split`: two processes on the database, ROLE=api (which the
 * load goes to) and ROLE=worker (which runs the jobs), as the production layout runs them.
 */
async function withService<T>(
  poolThreads: number,
  split: boolean,
  body: (url: string, key: string, databaseUrl: string, pids: number[]) => Promise<T>,
): Promise<T> {
  const name = `fra_bench_${randomBytes(4).toString('hex')}`;
  await admin(`create database ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  // One key drives every client: its rate-limit budgets (docs/api-behaviour.md#rate-limits) are raised far above
  // what the bench can send, so the figures measure the service, not the throttle (which still counts).
  const env = {
    DATABASE_URL: url.toString(),
    POOL_THREADS: String(poolThreads),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_READS_PER_SECOND: '1000000',
    RATE_LIMIT_SUBMISSIONS_PER_SECOND: '1000000',
  };
  const service = await startChildService(split ? { ...env, ROLE: 'api' } : env);
  const worker = split ? await startChildService({ ...env, ROLE: 'worker' }) : null;
  const pids = [service.child.pid!, ...(worker ? [worker.child.pid!] : [])];
  try {
    const cli = await runCli(
      ['keys', 'create', '--email', `bench-${randomUUID()}@example.com`, '--mode', 'test'],
      env,
    );
    if (cli.code !== 0) throw new Error(cli.stderr);
    return await body(service.url, cli.stdout.trim().split('\n').at(-1)!, url.toString(), pids);
  } finally {
    await worker?.kill('SIGTERM');
    await service.kill('SIGTERM');
    await admin(`drop database if exists ${name} with (force)`);
  }
}

async function submitAndWait(url: string, key: string, pollMs: number): Promise<number> {
  const started = performance.now();
  const response = await request(url, '/api/v1/developer/reports/financial', key, BODY);
  if (response.status !== 202) throw new Error(`submit answered ${response.status}: ${response.text}`);
  const { report_id: reportId } = JSON.parse(response.text) as { report_id: string };
  for (;;) {
    const poll = await request(url, `/api/v1/developer/reports/${reportId}`, key);
    const { status } = JSON.parse(poll.text) as { status: string };
    if (status === 'success') return performance.now() - started;
    if (status === 'failed') throw new Error(`report ${reportId} failed`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** `clients` closed loops, each submitting and polling to success, for DURATION_MS. */
async function closedLoop(url: string, key: string, clients: number, pollMs: number): Promise<Run> {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + DURATION_MS;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < deadline) latencies.push(await submitAndWait(url, key, pollMs));
    }),
  );
  return {
    latencies: latencies.sort((a, b) => a - b),
    completed: latencies.length,
    elapsedMs: performance.now() - started,
  };
}

/**
 * Sustained throughput: `clients` submitters POST back to back for DURATION_MS (no polling load), then the
 * run lasts until the last report has succeeded. Latency here is the server's own (completed_at − created_at).
 */
async function sustained(
  url: string,
  key: string,
  databaseUrl: string,
  servicePids: number[],
  clients: number,
): Promise<Run> {
  const before = cpuSnapshot(servicePids);
  const ownBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + DURATION_MS;
  let submitted = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < deadline) {
        const response = await request(url, '/api/v1/developer/reports/financial', key, BODY);
        if (response.status !== 202) throw new Error(`submit answered ${response.status}`);
        submitted++;
      }
    }),
  );
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query("select count(*)::int as n from reports where status = 'pending'");
      if (rows[0].n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const elapsedMs = performance.now() - started;
    const after = cpuSnapshot(servicePids);
    const own = process.cpuUsage(ownBefore);
    const perReport = (a: number, b: number) => ((a - b) * 1000) / submitted;
    const cpu =
      before && after
        ? {
            serviceMain: perReport(after.main, before.main),
            serviceOther: perReport(after.other, before.other),
            postgres: perReport(after.postgres, before.postgres),
            loadGenerator: (own.user + own.system) / 1000 / submitted,
            idlePct:
              (100 * (after.machine.idle - before.machine.idle)) /
              (after.machine.total - before.machine.total),
            stealPct:
              (100 * (after.machine.steal - before.machine.steal)) /
              (after.machine.total - before.machine.total),
          }
        : undefined;
    const { rows } = await client.query(
      `select extract(epoch from (completed_at - created_at)) * 1000 as ms from reports
       where status = 'success' and created_at >= now() - make_interval(secs => $1) order by 1`,
      [Math.ceil(elapsedMs / 1000) + 1],
    );
    const latencies = rows.map((row) => Number(row.ms));
    return { latencies, completed: submitted, elapsedMs, cpu };
  } finally {
    await client.end();
  }
}

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
  };
}

const threads = availableParallelism();
console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.versions.node}; ` +
    `6-year general_new submission (${Math.round(BODY.length / 1024)} kB), AI off; ${DURATION_MS / 1000} s per run`,
);
const rows: ReturnType<typeof describe>[] = [];
for (const [mode, poolThreads, split] of [
  [`pool (${threads} threads)`, threads, false],
  ['inline (main thread)', 0, false],
  [`separate roles: 1 api + 1 worker (pool, ${threads} threads)`, threads, true],
] as const) {
  await withService(poolThreads, split, async (url, key, databaseUrl, pids) => {
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
    await phase('sustained (16 submitters)', () => sustained(url, key, databaseUrl, pids, 16));
  });
}

agent.destroy();

const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '—');
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
const sustainedRows = rows.filter((row) => row.cpu);
if (sustainedRows.length > 0) {
  console.log(
    '\nCPU ms per report, sustained runs (the load generator is this process, on the same machine):',
  );
  console.log(
    '| run | service main thread | service other threads | PostgreSQL | service + PostgreSQL | load generator | machine idle / steal |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const { label, cpu } of sustainedRows) {
    const c = cpu!;
    console.log(
      `| ${label} | ${fmt(c.serviceMain)} | ${fmt(c.serviceOther)} | ${fmt(c.postgres)} | ${fmt(c.serviceMain + c.serviceOther + c.postgres)} | ${fmt(c.loadGenerator)} | ${fmt(c.idlePct)} % / ${fmt(c.stealPct)} % |`,
    );
  }
}

// ---- Industry benchmarking (docs/benchmarks.md): matching and peer statistics per report, measured apart. ----
await benchBenchmarks();
