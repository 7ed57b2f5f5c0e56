/**
 * What `npm run bench` (run.ts) and `npm run bench -- --against <ref>` (against.ts) measure with: the load
 * generator's HTTP client, the service started as its own process from a checkout (this one or another ref's
 * worktree), the closed-loop and sustained runs, the CPU of every process from /proc, the stored bytes per
 * report, the cost of a conditional read. Nothing here is a test.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { syntheticSubmission } from '../fixtures/synthetic.ts';
import { freePort } from '../helpers/process.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const ADMIN_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
export const SUBMISSION = syntheticSubmission({ years: 6, lastYear: 2024 });
export const BODY = Buffer.from(JSON.stringify(SUBMISSION));
export const DURATION_MS = Number(process.env.BENCH_SECONDS ?? 15) * 1000;

export async function admin(sql: string, url = ADMIN_URL) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * The load generator's HTTP client: node:http with keep-alive and the body encoded once. It runs on the same two
 * cores as the service and PostgreSQL, so its own cost counts against the throughput it measures: `fetch` (undici)
 * cost 1.0–1.1 ms of CPU per submission here, this 0.2–0.35 ms.
 */
export const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export function request(
  base: string,
  path: string,
  key: string,
  body?: Buffer,
  extraHeaders: Record<string, string> = {},
): Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: body ? 'POST' : 'GET',
        headers: {
          ...(body ? { 'Content-Type': 'application/json', 'Content-Length': body.length } : {}),
          'X-API-Key': key,
          ...extraHeaders,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString(), headers: res.headers }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A submission as an integration with every capability on sends it: with an Idempotency-Key. */
export function submit(url: string, key: string) {
  return request(url, '/api/v1/developer/reports/financial', key, BODY, { 'Idempotency-Key': randomUUID() });
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

export interface Run {
  latencies: number[];
  completed: number;
  elapsedMs: number;
  /** CPU ms per report (Linux /proc), sustained runs only. */
  cpu?: CpuPerReport;
  /** PostgreSQL's own counters per report over the run (pg_stat_database), sustained runs only. */
  db?: { transactions: number; rowsWritten: number; rowsRead: number };
}

export interface CpuPerReport {
  serviceMain: number;
  serviceOther: number;
  /**
   * Of serviceOther, the service's worker threads (Node 24 names them `WorkerThread`): the engine as it ran in the
   * service during this run — the Piscina pool's threads, V8's helper threads left out. Measured in the same
   * seconds as the whole, it moves with the machine's speed as the whole does (docs/performance.md).
   */
  servicePool: number;
  postgres: number;
  /** This process: the submitters, the completion poll and the webhook receiver. */
  loadGenerator: number;
  /**
   * Share of the machine's CPU time (all cores) that was idle, and stolen by the hypervisor, during the run (%):
   * until the last report finished and its webhooks were delivered.
   */
  idlePct: number;
  stealPct: number;
  /**
   * The same idle share while reports were submitted and analysed (until none was pending), and over the webhook
   * deliveries still running after that (their drain), with the drain's length (s; 0 without webhooks).
   */
  reportsIdlePct: number;
  drainIdlePct: number;
  drainSeconds: number;
}

/** The machine's CPU time so far, from the first line of /proc/stat (in clock ticks). */
export function machineTicks(): { total: number; idle: number; steal: number } {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = fields.map(Number) as number[];
  return {
    total: user! + nice! + system! + idle! + iowait! + irq! + softirq! + steal!,
    idle: idle! + iowait!,
    steal: steal!,
  };
}

/** CPU seconds a process or thread has used so far (utime + stime from /proc; clock ticks of 10 ms). */
export function cpuSeconds(statPath: string): number {
  try {
    const fields = readFileSync(statPath, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0; // the process or thread has gone
  }
}

/** CPU seconds so far of a process's threads named `name` (their `comm`; a thread that has gone counts 0). */
function threadsCpuSeconds(pid: number, name: string): number {
  let seconds = 0;
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  for (const task of tasks) {
    try {
      if (readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8').trim() === name)
        seconds += cpuSeconds(`/proc/${pid}/task/${task}/stat`);
    } catch {
      // the thread has gone
    }
  }
  return seconds;
}

/**
 * CPU used so far by the service's main threads, by their other threads and, of those, by their worker threads (the
 * pool), and the machine's ticks. A worker thread that exits mid-run takes its CPU with it: the pool's threads live
 * as long as the service.
 */
export function cpuSnapshot(servicePids: number[]) {
  if (!existsSync('/proc/self/stat')) return null;
  let total = 0;
  let main = 0;
  let pool = 0;
  for (const pid of servicePids) {
    total += cpuSeconds(`/proc/${pid}/stat`);
    main += cpuSeconds(`/proc/${pid}/task/${pid}/stat`);
    pool += threadsCpuSeconds(pid, 'WorkerThread');
  }
  return { main, other: total - main, pool, machine: machineTicks() };
}

/**
 * CPU of the PostgreSQL backends serving one database, sampled every 200 ms while it runs: a backend that exits
 * mid-run (a pool closing an idle connection) keeps the CPU it had used when last seen, one that starts counts
 * from zero. Backends come from pg_stat_activity (autovacuum included); the server's shared background
 * processes (WAL writer, checkpointer) are left out, as on a shared server they work for every database.
 */
export class PostgresMeter {
  readonly #client: pg.Client;
  readonly #first = new Map<number, number>();
  readonly #last = new Map<number, number>();
  #timer: NodeJS.Timeout | null = null;
  #sampling: Promise<void> = Promise.resolve();

  constructor(client: pg.Client) {
    this.#client = client;
  }

  async #sample(initial: boolean) {
    const { rows } = await this.#client.query(
      'select pid from pg_stat_activity where datname = current_database() and pid is not null',
    );
    for (const { pid } of rows as Array<{ pid: number }>) {
      const seconds = cpuSeconds(`/proc/${pid}/stat`);
      if (!this.#first.has(pid)) this.#first.set(pid, initial ? seconds : 0);
      this.#last.set(pid, Math.max(seconds, this.#last.get(pid) ?? 0));
    }
  }

  async start() {
    await this.#sample(true);
    this.#timer = setInterval(() => {
      this.#sampling = this.#sampling.then(() => this.#sample(false)).catch(() => undefined);
    }, 200);
  }

  /** CPU seconds of the database's backends since start(). */
  async stop(): Promise<number> {
    if (this.#timer) clearInterval(this.#timer);
    await this.#sampling;
    await this.#sample(false);
    let sum = 0;
    for (const [pid, last] of this.#last) sum += last - (this.#first.get(pid) ?? 0);
    return sum;
  }
}

/**
 * A local receiver for the webhook endpoint the bench registers: answers every delivery 204 at once, and counts
 * them. It runs in this process (the load generator), as a consumer's endpoint would run elsewhere.
 */
export async function webhookReceiver(): Promise<{
  url: string;
  received(): number;
  close(): Promise<void>;
}> {
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/bench-hook`,
    received: () => received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface Service {
  url: string;
  key: string;
  databaseUrl: string;
  pids: number[];
  /** Whether the build took the webhook endpoint (builds before webhooks answer 404). */
  webhook: boolean;
}

interface Child {
  pid: number;
  url: string;
  stop(): Promise<void>;
}

/**
 * `node server/main.ts` of the checkout at `root`, as its own process (as in production), logging at `info` (the
 * access log on) to a file, as a deployment's log collector would take it.
 */
async function startService(root: string, env: Record<string, string>, logFile: string): Promise<Child> {
  const port = await freePort();
  const fd = openSync(logFile, 'a');
  // BENCH_SERVICE_NODE_ARGS: extra node flags for the service (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
  const nodeArgs = process.env.BENCH_SERVICE_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, 'server/main.ts'], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited during start-up (log: ${logFile})`);
    try {
      if ((await fetch(`${url}/healthz`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the service did not become healthy (log: ${logFile})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    pid: child.pid!,
    url,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface ServiceOptions {
  /** The checkout whose service runs (this one by default). */
  root?: string;
  poolThreads: number;
  /** Two processes on the database, ROLE=api (which takes the load) and ROLE=worker (which runs the jobs). */
  split?: boolean;
  /** Register a webhook endpoint pointing at `webhookUrl` for the bench's account. */
  webhookUrl?: string;
}

/**
 * Runs the service of `root` on a database of its own with every capability on: rate limits counted (budgets raised
 * far above what the bench sends, so they are spent but never exhausted), per-account fairness, the access log
 * (LOG_LEVEL=info, to a file), metrics, and — when `webhookUrl` is given — a webhook endpoint every report notifies.
 * The key comes from the checkout's own CLI.
 */
export async function withService<T>(
  options: ServiceOptions,
  body: (service: Service) => Promise<T>,
): Promise<T> {
  const root = options.root ?? ROOT;
  const name = `fra_bench_${randomBytes(4).toString('hex')}`;
  await admin(`create database ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const env = {
    DATABASE_URL: url.toString(),
    POOL_THREADS: String(options.poolThreads),
    LOG_LEVEL: 'info',
    RATE_LIMIT_READS_PER_SECOND: '1000000',
    RATE_LIMIT_SUBMISSIONS_PER_SECOND: '1000000',
    WEBHOOK_ALLOW_PRIVATE: '1',
  };
  const logFile = join(tmpdir(), `${name}.log`);
  const service = await startService(root, options.split ? { ...env, ROLE: 'api' } : env, logFile);
  const worker = options.split ? await startService(root, { ...env, ROLE: 'worker' }, logFile) : null;
  const pids = [service.pid, ...(worker ? [worker.pid] : [])];
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['server/cli.ts', 'keys', 'create', '--email', `bench-${randomUUID()}@example.com`, '--mode', 'test'],
      { cwd: root, env: { ...process.env, ...env, LOG_LEVEL: 'warn' } },
    );
    const key = stdout.trim().split('\n').at(-1)!;
    let webhook = false;
    if (options.webhookUrl) {
      const created = await request(
        service.url,
        '/api/v1/developer/webhook-endpoints',
        key,
        Buffer.from(JSON.stringify({ url: options.webhookUrl, description: 'bench' })),
      );
      webhook = created.status === 201;
      if (!webhook && created.status !== 404 && created.status !== 405)
        throw new Error(`registering the webhook endpoint answered ${created.status}: ${created.text}`);
    }
    return await body({ url: service.url, key, databaseUrl: url.toString(), pids, webhook });
  } finally {
    await worker?.stop();
    await service.stop();
    await admin(`drop database if exists ${name} with (force)`);
  }
}

async function submitAndWait(url: string, key: string, pollMs: number): Promise<number> {
  const started = performance.now();
  const response = await submit(url, key);
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

/** `clients` closed loops, each submitting and polling to success, for `durationMs`. */
export async function closedLoop(
  url: string,
  key: string,
  clients: number,
  pollMs: number,
  durationMs = DURATION_MS,
): Promise<Run> {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + durationMs;
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

async function dbCounters(client: pg.Client) {
  const { rows } = await client.query(
    `select xact_commit + xact_rollback as transactions, tup_inserted + tup_updated + tup_deleted as written,
            tup_returned + tup_fetched as read
       from pg_stat_database where datname = current_database()`,
  );
  // The statistics collector is told at the end of each transaction, and pg_stat_database is read as of the
  // snapshot: cleared so the next read sees the latest counters.
  await client.query('select pg_stat_clear_snapshot()');
  return {
    transactions: Number(rows[0].transactions),
    written: Number(rows[0].written),
    read: Number(rows[0].read),
  };
}

/**
 * Sustained throughput: `clients` submitters POST back to back for `durationMs` (no polling load), then the run
 * lasts until the last report has succeeded and, with a webhook endpoint, its delivery has been answered.
 * Latency here is the server's own (completed_at − created_at).
 */
export async function sustained(
  service: Service,
  clients: number,
  delivered?: () => number,
  durationMs = DURATION_MS,
): Promise<Run> {
  const { url, key, databaseUrl, pids } = service;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // Statistics, as autovacuum would have them in any deployment a minute old: the bench's database is younger
    // than autovacuum's naptime, so without this every plan (and every generic plan the service's prepared
    // statements cache) is an empty table's — an update by id through the status index, pg-boss's fetch scanning
    // its whole queue. Worth about 1.1 ms of PostgreSQL's CPU per report (docs/performance.md).
    await client.query('analyze');
    const deliveredBefore = delivered?.() ?? 0;
    const countersBefore = await dbCounters(client);
    const meter = new PostgresMeter(client);
    await meter.start();
    const before = cpuSnapshot(pids);
    const ownBefore = process.cpuUsage();
    const started = performance.now();
    const deadline = started + durationMs;
    let submitted = 0;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (performance.now() < deadline) {
          const response = await submit(url, key);
          if (response.status !== 202) throw new Error(`submit answered ${response.status}`);
          submitted++;
        }
      }),
    );
    for (;;) {
      // One index probe, where a count walked every pending report each time (the load generator's cost, not a
      // report's, but PostgreSQL's CPU is counted whole).
      const { rows } = await client.query(
        "select exists (select from reports where status = 'pending') as busy",
      );
      if (!rows[0].busy) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const elapsedMs = performance.now() - started;
    const reportsDone = machineTicks();
    // The webhook deliveries finish after their reports: their cost is part of a report's, not of throughput.
    if (service.webhook && delivered) {
      const until = Date.now() + 60_000;
      while (delivered() - deliveredBefore < submitted && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const drainMs = performance.now() - started - elapsedMs;
    const after = cpuSnapshot(pids);
    const own = process.cpuUsage(ownBefore);
    const postgresSeconds = await meter.stop();
    const countersAfter = await dbCounters(client);
    const perReport = (a: number, b: number) => ((a - b) * 1000) / submitted;
    const cpu =
      before && after
        ? {
            serviceMain: perReport(after.main, before.main),
            serviceOther: perReport(after.other, before.other),
            servicePool: perReport(after.pool, before.pool),
            postgres: (postgresSeconds * 1000) / submitted,
            loadGenerator: (own.user + own.system) / 1000 / submitted,
            idlePct:
              (100 * (after.machine.idle - before.machine.idle)) /
              (after.machine.total - before.machine.total),
            stealPct:
              (100 * (after.machine.steal - before.machine.steal)) /
              (after.machine.total - before.machine.total),
            reportsIdlePct:
              (100 * (reportsDone.idle - before.machine.idle)) / (reportsDone.total - before.machine.total),
            drainIdlePct:
              after.machine.total > reportsDone.total
                ? (100 * (after.machine.idle - reportsDone.idle)) / (after.machine.total - reportsDone.total)
                : 0,
            drainSeconds: drainMs / 1000,
          }
        : undefined;
    const db = {
      transactions: (countersAfter.transactions - countersBefore.transactions) / submitted,
      rowsWritten: (countersAfter.written - countersBefore.written) / submitted,
      rowsRead: (countersAfter.read - countersBefore.read) / submitted,
    };
    const { rows } = await client.query(
      `select extract(epoch from (completed_at - created_at)) * 1000 as ms from reports
       where status = 'success' and created_at >= now() - make_interval(secs => $1) order by 1`,
      [Math.ceil(elapsedMs / 1000) + 1],
    );
    const latencies = rows.map((row) => Number(row.ms));
    return { latencies, completed: submitted, elapsedMs, cpu, db };
  } finally {
    await client.end();
  }
}

/**
 * PostgreSQL bytes per stored report: every table of the service's database (table, TOAST and indexes,
 * pg_total_relation_size) after VACUUM, divided by the reports stored. The report's own tables and pg-boss's
 * job tables (whose completed jobs its retention deletes later) are counted apart.
 */
export async function storagePerReport(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('vacuum');
    const { rows: counted } = await client.query('select count(*)::int as n from reports');
    const reports = counted[0].n as number;
    const { rows } = await client.query(
      `select n.nspname as schema, c.relname as name, pg_total_relation_size(c.oid)::bigint as total,
              pg_relation_size(c.oid)::bigint as heap,
              coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0)::bigint as toast,
              pg_indexes_size(c.oid)::bigint as indexes
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'p') and n.nspname in ('public', 'pgboss')`,
    );
    const per = (bytes: number) => bytes / Math.max(1, reports);
    const tables = rows
      .map((row) => ({
        table: `${row.schema === 'pgboss' ? 'pgboss.' : ''}${row.name}`,
        jobs: row.schema === 'pgboss',
        total: per(Number(row.total)),
        heap: per(Number(row.heap)),
        toast: per(Number(row.toast)),
        indexes: per(Number(row.indexes)),
      }))
      .filter((t) => t.total >= 100)
      .sort((a, b) => b.total - a.total);
    const sum = (jobs: boolean) => tables.filter((t) => t.jobs === jobs).reduce((s, t) => s + t.total, 0);
    return { reports, tables, report: sum(false), jobs: sum(true) };
  } finally {
    await client.end();
  }
}

/**
 * The service's CPU per conditional read of a finished report: `n` GETs with If-None-Match (each answered 304),
 * one at a time, the service's CPU from /proc (10 ms ticks: n large enough that a tick is noise). Also the same for
 * plain GETs (200 with the body) and the service's CPU per request of each.
 */
export async function conditionalReadCost(service: Service, n = 2000) {
  const { url, key, pids } = service;
  const client = new pg.Client({ connectionString: service.databaseUrl });
  await client.connect();
  const submitted = await submit(url, key);
  const { report_id: reportId } = JSON.parse(submitted.text) as { report_id: string };
  let first: Awaited<ReturnType<typeof request>>;
  for (;;) {
    first = await request(url, `/api/v1/developer/reports/${reportId}`, key);
    if ((JSON.parse(first.text) as { status: string }).status === 'success') break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const etag = String(first.headers.etag ?? '');
  const measure = async (headers: Record<string, string>, expected: number) => {
    // As many reads again first: V8 optimises the read path over the first thousands of requests, and the first
    // 200 left the figure 30-60 % above the steady cost a polling client meets (docs/performance.md, eighth stop).
    for (let i = 0; i < Math.max(200, n); i++)
      await request(url, `/api/v1/developer/reports/${reportId}`, key, undefined, headers);
    const meter = new PostgresMeter(client);
    await meter.start();
    const before = cpuSnapshot(pids);
    const started = performance.now();
    for (let i = 0; i < n; i++) {
      const response = await request(url, `/api/v1/developer/reports/${reportId}`, key, undefined, headers);
      if (response.status !== expected)
        throw new Error(`a read answered ${response.status}, not ${expected}`);
    }
    const elapsed = performance.now() - started;
    const after = cpuSnapshot(pids);
    const postgresSeconds = await meter.stop();
    if (!before || !after) return null;
    return {
      serviceMs: ((after.main + after.other - before.main - before.other) * 1000) / n,
      postgresMs: (postgresSeconds * 1000) / n,
      wallMs: elapsed / n,
    };
  };
  try {
    return {
      etag: etag !== '',
      notModified: etag ? await measure({ 'If-None-Match': etag }, 304) : null,
      full: await measure({}, 200),
    };
  } finally {
    await client.end();
  }
}
