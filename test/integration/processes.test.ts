/**
 * Production behaviour across real processes (`node server/main.ts`, and `npm start`) on one PostgreSQL: roles,
 * the access log, metrics and traces; SIGTERM under load; signal forwarding by npm; failover and scale-out.
 * Jobs are held mid-way by a lock on the statements table taken from another connection (the store step waits
 * for it), so which process holds which job is decided by the test, not by the machine's speed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { COMPILE_CACHE_DIR, loadConfig } from '../../server/config.ts';
import { connect, createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { type ChildService, runCli, startChildService, until } from '../helpers/process.ts';
import { fixture } from '../helpers/service.ts';

const SUBMIT = '/api/v1/developer/reports/financial';
/** Small processes: two cores run up to four of them plus PostgreSQL. */
const SMALL = { POOL_THREADS: '1', JOB_CONCURRENCY: '4', JOB_ACCOUNT_CONCURRENCY: '64' };
/** Job slots for `n` jobs held at once: a worker's dispatcher fetches exactly its free slots, however jobs arrive. */
const holding = (n: number) => ({ JOB_CONCURRENCY: String(n) });

describe('processes', { timeout: 180_000 }, () => {
  let db: TestDatabase | undefined;
  const children: ChildService[] = [];
  const clients: pg.Client[] = [];

  afterEach(async () => {
    for (const child of children.splice(0)) await child.kill('SIGKILL');
    for (const client of clients.splice(0)) await client.end().catch(() => undefined);
    await db?.drop();
    db = undefined;
  });

  async function setUp() {
    db = await createTestDatabase('postgres');
    const env = { DATABASE_URL: db.databaseUrl! };
    const observer = await connect(db.databaseUrl!);
    clients.push(observer);
    return { env, observer };
  }

  async function start(env: Record<string, string>, options: { npm?: boolean } = {}) {
    const child = await startChildService(env, options);
    children.push(child);
    return child;
  }

  async function newKey(env: Record<string, string>) {
    const cli = await runCli(['keys', 'create', '--email', 'ops@example.com', '--mode', 'test'], env);
    expect(cli.code, cli.stderr).toBe(0);
    return cli.stdout.trim().split('\n').at(-1)!;
  }

  async function submit(service: ChildService, key: string) {
    const response = await fetch(`${service.url}${SUBMIT}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-Key': key },
      body: JSON.stringify(fixture('general_new-3y')),
    });
    expect(response.status).toBe(202);
    return (await response.json()) as { report_id: string; task_id: string };
  }

  /**
   * Holds every job after its claim (its attempt counted, its statements stored) until released: at its read of its
   * industry peers (the fixture's industry is C39), before it computes. Not in its assemble statement: that is one
   * statement, and one sent before its process was killed still commits once the lock is released.
   */
  async function holdJobs() {
    const blocker = await connect(db!.databaseUrl!);
    clients.push(blocker);
    await blocker.query('begin');
    await blocker.query('lock table peer_values in access exclusive mode');
    return () => blocker.query('rollback');
  }

  const claimedCount = async (observer: pg.Client, attempts = 1) =>
    Number(
      (await observer.query('select count(*)::int as n from tasks where attempts >= $1', [attempts])).rows[0]
        .n,
    );

  const statuses = async (observer: pg.Client) =>
    (await observer.query('select status, count(*)::int as n from reports group by 1 order by 1')).rows;

  /** The JSON log lines of a process's output. */
  const logLines = (child: ChildService) =>
    child
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  it('runs an api and a worker apart: roles, access log, metrics and traces', async () => {
    const { env, observer } = await setUp();
    const spans: string[] = [];
    const collector: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        if (req.url === '/v1/traces') spans.push(body);
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => collector.once('listening', resolve));
    try {
      const otlp = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
      const [api, key] = await Promise.all([
        // No compile cache from the environment: the service enables Node's own (main.ts).
        start({
          ...env,
          ...SMALL,
          ROLE: 'api',
          LOG_LEVEL: 'info',
          OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
          NODE_COMPILE_CACHE: '',
        }),
        newKey(env),
      ]);
      const { report_id: reportId, task_id: taskId } = await submit(api, key);
      expect(logLines(api).find((line) => line.msg === 'service started')).toMatchObject({
        role: 'api',
        compileCache: expect.stringContaining(COMPILE_CACHE_DIR),
      });

      // An api process runs no job: the report stays queued (workers poll every second) until a worker starts.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const waiting = await observer.query('select attempts from tasks where id = $1', [taskId]);
      expect(waiting.rows[0].attempts).toBe(0);

      const worker = await start({ ...env, ...SMALL, ROLE: 'worker', METRICS_TOKEN: 'scrape-me' });
      await until('the worker to finish the report', async () => {
        const { rows } = await observer.query('select status from reports where id = $1', [reportId]);
        return rows[0].status === 'pending' ? undefined : rows[0].status;
      });
      const report = await fetch(`${api.url}/api/v1/developer/reports/${reportId}`, {
        headers: { 'X-API-Key': key },
      });
      expect(((await report.json()) as { status: string }).status).toBe('success');

      // A worker serves the operations endpoints and nothing else.
      expect((await fetch(`${worker.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${worker.url}/readyz`)).status).toBe(200);
      for (const path of [`/api/v1/developer/reports/${reportId}`, '/graphql', '/console']) {
        const response = await fetch(`${worker.url}${path}`, { headers: { 'X-API-Key': key } });
        expect(response.status, path).toBe(404);
        expect(((await response.json()) as { code: string }).code).toBe('route_not_found');
      }
      expect((await fetch(`${worker.url}/metrics`)).status).toBe(401);
      const workerMetrics = await fetch(`${worker.url}/metrics`, {
        headers: { Authorization: 'Bearer scrape-me' },
      });
      expect(workerMetrics.status).toBe(200);
      const workerText = await workerMetrics.text();
      expect(workerText).toMatch(/^job_queue_depth\{queue="report-analysis",state="ready"\} \d+/m);
      expect(workerText).toMatch(/^worker_pool_utilisation \d/m);
      for (const step of ['store', 'compute', 'assemble', 'job']) {
        expect(workerText).toMatch(
          new RegExp(`^job_step_duration_seconds_count\\{step="${step}"\\} 1$`, 'm'),
        );
      }
      const apiText = await (await fetch(`${api.url}/metrics`)).text();
      expect(apiText).toMatch(/^report_submissions_total\{mode="test",outcome="accepted"\} 1$/m);
      expect(apiText).toMatch(
        /^http_request_duration_seconds_count\{method="POST",route="\/api\/v1\/developer\/reports\/financial",status="202"\} 1$/m,
      );

      // One access-log line per request, with the key's prefix only (written in batches, within 200 ms).
      const access = await until('the access lines of the reads', async () => {
        const lines = logLines(api).filter((line) => line.msg === 'request');
        return lines.some((line) => line.route === '/api/v1/developer/reports/:reportId') ? lines : undefined;
      });
      const submission = access.find((line) => line.route === SUBMIT);
      expect(submission).toMatchObject({
        level: 30,
        method: 'POST',
        path: SUBMIT,
        status: 202,
        key: key.slice(0, 12),
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        ms: expect.any(Number),
      });
      expect(access.find((line) => line.route === '/api/v1/developer/reports/:reportId')).toMatchObject({
        status: 200,
      });
      expect(api.output()).not.toContain(key);

      await api.kill('SIGTERM');
      expect(await api.exited).toEqual({ code: 0, signal: null });
      // Spans of the three instrumentations reached the collector (flushed at shutdown).
      const exported = spans.join('\n');
      for (const scope of ['instrumentation-http', 'instrumentation-koa', 'instrumentation-pg']) {
        expect(exported, scope).toContain(`@opentelemetry/${scope}`);
      }
    } finally {
      collector.close();
    }
  });

  it('on SIGTERM an api drains: /readyz 503 while it keeps serving new connections, then closes its listener', async () => {
    const { env } = await setUp();
    const drainSeconds = 3;
    const [api, key] = await Promise.all([
      start({
        ...env,
        ...SMALL,
        ROLE: 'api',
        SHUTDOWN_DRAIN_SECONDS: String(drainSeconds),
        SHUTDOWN_GRACE_SECONDS: '10',
        LOG_LEVEL: 'info',
      }),
      newKey(env),
    ]);
    const signalled = Date.now();
    api.child.kill('SIGTERM');
    await until('readiness to turn 503', async () =>
      (await fetch(`${api.url}/readyz`)).status === 503 ? true : undefined,
    );
    // Twenty requests on new connections during the drain: every one answered, none reset.
    const during = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`${api.url}/api/v1/developer/catalogue`, { headers: { 'X-API-Key': key } }).then(
          async (response) => {
            await response.arrayBuffer();
            return response.status;
          },
          () => 'reset',
        ),
      ),
    );
    expect(Date.now() - signalled).toBeLessThan(drainSeconds * 1000);
    expect(during).toEqual(Array(20).fill(200));
    await until('the listener to close', async () =>
      (await fetch(`${api.url}/healthz`).then(
        () => false,
        () => true,
      ))
        ? true
        : undefined,
    );
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(drainSeconds * 1000 - 100);
    expect(await api.exited, api.output()).toEqual({ code: 0, signal: null });
  });

  it('on SIGTERM under load answers requests in flight, hands running jobs back, exits 0 within the grace', async () => {
    const { env, observer } = await setUp();
    const grace = 6;
    // Heartbeats far longer than the test: a job re-taken in time was handed back, not found dead.
    const slowHeartbeat = { JOB_HEARTBEAT_SECONDS: '120' };
    const [first, key] = await Promise.all([
      start({
        ...env,
        ...SMALL,
        ...holding(4),
        ...slowHeartbeat,
        LOG_LEVEL: 'info',
        SHUTDOWN_GRACE_SECONDS: String(grace),
      }),
      newKey(env),
    ]);
    const releaseJobs = await holdJobs();
    const held: string[] = [];
    for (let i = 0; i < 4; i++) held.push((await submit(first, key)).task_id);
    await until('the first process to hold four jobs', async () =>
      (await claimedCount(observer)) === 4 ? true : undefined,
    );
    const second = await start({
      ...env,
      ...SMALL,
      ...slowHeartbeat,
      ROLE: 'worker',
      ...holding(10),
    });

    // Submissions in flight: each waits inside the server for a lock on the enterprises table.
    const gate = await connect(db!.databaseUrl!);
    clients.push(gate);
    await gate.query('begin');
    await gate.query('lock table enterprises in exclusive mode');
    const inFlight = Array.from({ length: 6 }, () =>
      fetch(`${first.url}${SUBMIT}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-Key': key },
        body: JSON.stringify(fixture('general_new-3y')),
      }),
    );
    await until('six submissions to wait in the database', async () => {
      const { rows } = await observer.query(
        "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%insert into enterprises%'",
      );
      return rows[0].n === 6 ? true : undefined;
    });

    const signalled = Date.now();
    first.child.kill('SIGTERM');
    // It stops accepting connections at once.
    await until('the listener to close', async () =>
      (await fetch(`${first.url}/healthz`).then(
        () => false,
        () => true,
      ))
        ? true
        : undefined,
    );
    await gate.query('rollback');
    const answered = await Promise.all(inFlight);
    expect(answered.map((response) => response.status)).toEqual([202, 202, 202, 202, 202, 202]);

    const exit = await first.exited;
    const exitMs = Date.now() - signalled;
    expect(exit, first.output()).toEqual({ code: 0, signal: null });
    const stopped = logLines(first).find((line) => line.msg === 'stopped')!;
    expect(stopped).toMatchObject({ requestsInFlight: 6, jobsHandedBack: 4, jobsFinished: 0 });
    expect(stopped.ms as number).toBeLessThanOrEqual(grace * 1000);
    console.info(`SIGTERM under load: ${JSON.stringify(stopped)}; signal → exit ${exitMs} ms`);

    // The handed-back jobs are taken by the other worker at once (still held by the lock), not after 120 s.
    await until('the other worker to take the handed-back jobs', async () => {
      const { rows } = await observer.query(
        'select count(*)::int as n from tasks where id = any($1) and attempts = 2',
        [held],
      );
      return rows[0].n === 4 ? true : undefined;
    });
    await releaseJobs();
    await until('every accepted report to finish', async () => {
      const rows = await statuses(observer);
      return rows.some((row) => row.status === 'pending') ? undefined : rows;
    });
    expect(await statuses(observer)).toEqual([{ status: 'success', n: 10 }]);
    expect(second.child.exitCode).toBeNull();
  });

  it('npm start passes SIGTERM on; a draining worker says 503 on /readyz and finishes its job', async () => {
    const { env, observer } = await setUp();
    const [api, key, worker] = await Promise.all([
      start({ ...env, ...SMALL, ROLE: 'api' }),
      newKey(env),
      start(
        { ...env, ...SMALL, ROLE: 'worker', SHUTDOWN_GRACE_SECONDS: '60', LOG_LEVEL: 'info' },
        { npm: true },
      ),
    ]);
    const releaseJobs = await holdJobs();
    const { report_id: reportId, task_id: taskId } = await submit(api, key);
    await until('the worker to take the job', async () =>
      (await claimedCount(observer)) === 1 ? true : undefined,
    );

    worker.child.kill('SIGTERM'); // to npm, as `docker stop` or an operator's kill would
    await until('/readyz to turn 503', async () =>
      (await fetch(`${worker.url}/readyz`)).status === 503 ? true : undefined,
    );
    expect((await fetch(`${worker.url}/healthz`)).status).toBe(200);
    await releaseJobs();
    expect(await worker.exited).toEqual({ code: 0, signal: null });
    // node is gone with npm (nothing answers on its port any more), after finishing the job itself.
    await expect(fetch(`${worker.url}/healthz`)).rejects.toThrow();
    const { rows } = await observer.query('select status, attempts from tasks where id = $1', [taskId]);
    expect(rows[0]).toEqual({ status: 'success', attempts: 1 });
    const report = await fetch(`${api.url}/api/v1/developer/reports/${reportId}`, {
      headers: { 'X-API-Key': key },
    });
    expect(((await report.json()) as { status: string }).status).toBe('success');
  });

  it('holds exactly JOB_CONCURRENCY jobs: of a backlog, and of jobs that arrive one at a time', async () => {
    const { env, observer } = await setUp();
    const slots = 6;
    const [api, key] = await Promise.all([start({ ...env, ...SMALL, ROLE: 'api' }), newKey(env)]);
    const active = async () =>
      Number(
        (
          await observer.query(
            "select count(*)::int as n from pgboss.job where name = 'report-analysis' and state = 'active'",
          )
        ).rows[0].n,
      );
    const finished = async (n: number) => {
      await until('every report to finish', async () => {
        const rows = await statuses(observer);
        return rows.some((row) => row.status === 'pending') ? undefined : rows;
      });
      expect(await statuses(observer)).toEqual([{ status: 'success', n }]);
    };

    // A backlog of 9 when the worker starts: it takes its 6 slots' worth and leaves 3 waiting through its polls
    // (pg-boss fetchers of 4 took 8; a fetch of more than the free slots takes all 9).
    let releaseJobs = await holdJobs();
    for (let i = 0; i < slots + 3; i++) await submit(api, key);
    await start({ ...env, ...SMALL, ROLE: 'worker', JOB_CONCURRENCY: String(slots) });
    await until('the worker to take its slots', async () => ((await active()) >= slots ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await active()).toBe(slots);
    await releaseJobs();
    await finished(slots + 3);

    // One job at a time, each taken before the next is submitted: every one arrives alone (one NOTIFY each). pg-boss
    // fetchers that wait for their whole batch held one job each (2 at most with 6 slots in fetchers of 4 or of 3).
    releaseJobs = await holdJobs();
    for (let i = 1; i <= slots; i++) {
      await submit(api, key);
      await until(
        `the worker to hold ${i} jobs`,
        async () => ((await active()) === i ? true : undefined),
        15_000,
      );
    }
    // With every slot taken, new jobs wait through their NOTIFYs and the polls.
    for (let i = 0; i < 2; i++) await submit(api, key);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await active()).toBe(slots);
    await releaseJobs();
    await finished(2 * slots + 5);
    const { rows: tasks } = await observer.query('select attempts, count(*)::int as n from tasks group by 1');
    expect(tasks).toEqual([{ attempts: 1, n: 2 * slots + 5 }]);
  });

  it('scales out: two api and two worker processes, one worker SIGKILLed mid-way, every report succeeds once', async () => {
    const { env, observer } = await setUp();
    const [api1, api2, key] = await Promise.all([
      start({ ...env, ...SMALL, ROLE: 'api' }),
      start({ ...env, ...SMALL, ROLE: 'api' }),
      newKey(env),
    ]);
    const releaseJobs = await holdJobs();
    const reports: string[] = [];
    const submitSome = async (n: number) => {
      for (let i = 0; i < n; i++)
        reports.push((await submit(reports.length % 2 === 0 ? api1 : api2, key)).report_id);
    };
    // Four jobs wait before the first worker starts: it (JOB_CONCURRENCY 4) takes all four and, holding them,
    // takes no more.
    await submitSome(4);
    const worker1 = await start({ ...env, ...SMALL, ROLE: 'worker' });
    await until('the first worker to hold four jobs', async () =>
      (await claimedCount(observer)) === 4 ? true : undefined,
    );
    await submitSome(8);
    const worker2 = await start({ ...env, ...SMALL, ...holding(8), ROLE: 'worker' });
    await until('the second worker to hold the other eight', async () =>
      (await claimedCount(observer)) === 12 ? true : undefined,
    );

    await worker1.kill('SIGKILL');
    const killedAt = (await observer.query('select now() as t')).rows[0].t as Date;
    await releaseJobs();
    await until('every report to finish', async () => {
      const rows = await statuses(observer);
      return rows.some((row) => row.status === 'pending') ? undefined : rows;
    });
    expect(await statuses(observer)).toEqual([{ status: 'success', n: 12 }]);

    // Exactly the dead worker's four jobs ran twice; every job completed once; each report has one set of results.
    const { rows: tasks } = await observer.query(
      'select attempts, count(*)::int as n from tasks group by 1 order by 1',
    );
    expect(tasks).toEqual([
      { attempts: 1, n: 8 },
      { attempts: 2, n: 4 },
    ]);
    // A job is marked completed just after its report's last commit: wait for the queue to record it.
    const jobs = await until('every job to be marked done', async () => {
      const { rows } = await observer.query(
        "select state, count(*)::int as n from pgboss.job where name = 'report-analysis' group by 1",
      );
      return rows.some((row: { state: string }) => row.state === 'active') ? undefined : rows;
    });
    expect(jobs).toEqual([{ state: 'completed', n: 12 }]);
    const { rows: results } = await observer.query(
      'select count(distinct n)::int as kinds from (select count(*) as n from analysis_results group by report_id) c',
    );
    expect(results[0].kinds).toBe(1);

    // Failover within the configured time: missed heartbeat + one supervisor pass + first retry delay (≤ 2 s) +
    // one poll (1 s) — 15 s with the defaults.
    const defaults = loadConfig({});
    const failoverSeconds = defaults.jobHeartbeatSeconds + defaults.jobMonitorSeconds + 2 + 1;
    expect(failoverSeconds).toBeLessThanOrEqual(15);
    const { rows: retaken } = await observer.query(
      `select extract(epoch from (started_on - $1::timestamptz))::float as s from pgboss.job
        where name = 'report-analysis' and retry_count = 1`,
      [killedAt],
    );
    expect(retaken).toHaveLength(4);
    for (const { s } of retaken) expect(s).toBeLessThanOrEqual(failoverSeconds);
    console.info(
      `failover: re-taken ${retaken.map(({ s }) => `${s.toFixed(1)} s`).join(', ')} after SIGKILL`,
    );
    expect(worker2.child.exitCode).toBeNull();
    expect(reports).toHaveLength(12);
  });
});
