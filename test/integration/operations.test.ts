/**
 * Operations, in one process on PostgreSQL: deleting a report (REST and GraphQL, API key and console session),
 * retention, back-pressure on submissions, per-account fairness of the job queue, /readyz and /metrics.
 * The same behaviour across real processes (roles, signals, failover, scale-out): processes.test.ts.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { purgeExpiredReports } from '../../server/jobs/retention.ts';
import { connect } from '../helpers/database.ts';
import { graphql } from '../helpers/graphql.ts';
import { until } from '../helpers/process.ts';
import { fixture, startTestService, type TestService, waitForReport } from '../helpers/service.ts';

const SUBMIT = '/api/v1/developer/reports/financial';

async function submit(service: TestService, key: string) {
  const response = await service.request(SUBMIT, { method: 'POST', key, body: fixture('general_new-3y') });
  expect(response.status, response.text).toBe(202);
  return response.body as { report_id: string; task_id: string };
}

/** Rows that belong to a report, by table. */
async function rowsOf(service: TestService, reportId: string) {
  const client = await connect(service.db.databaseUrl!);
  try {
    const count = async (table: string) =>
      Number(
        (await client.query(`select count(*)::int as n from ${table} where report_id = $1`, [reportId]))
          .rows[0].n,
      );
    return {
      reports: Number(
        (await client.query('select count(*)::int as n from reports where id = $1', [reportId])).rows[0].n,
      ),
      statements: await count('statements'),
      analysis_results: await count('analysis_results'),
      tasks: await count('tasks'),
    };
  } finally {
    await client.end();
  }
}

describe('operations (one process)', () => {
  let service: TestService;
  let key: string;

  beforeAll(async () => {
    service = await startTestService('postgres', { reportRetentionDays: 30 });
    key = await service.newKey('test');
  });
  afterAll(async () => {
    await service?.close();
  });

  describe('deleting a report', () => {
    it('over REST removes the report, its statements, results, task and share link; 404 for others', async () => {
      const { report_id: reportId } = await submit(service, key);
      const done = await waitForReport(service, key, reportId);
      expect(done.body.status).toBe('success');
      const token = done.body.share.share_token as string;
      expect(await rowsOf(service, reportId)).toEqual({
        reports: 1,
        statements: 9,
        analysis_results: expect.any(Number),
        tasks: 1,
      });

      // Another account's key and the other mode's key cannot delete it, nor tell it exists.
      for (const other of [await service.newKey('test'), await service.newKey('live')]) {
        const refused = await service.request(`/api/v1/developer/reports/${reportId}`, {
          method: 'DELETE',
          key: other,
        });
        expect(refused.status).toBe(404);
        expect(refused.body.code).toBe('not_found');
      }
      expect((await rowsOf(service, reportId)).reports).toBe(1);

      const deleted = await service.request(`/api/v1/developer/reports/${reportId}`, {
        method: 'DELETE',
        key,
      });
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      expect(await rowsOf(service, reportId)).toEqual({
        reports: 0,
        statements: 0,
        analysis_results: 0,
        tasks: 0,
      });
      expect((await service.request(`/api/v1/developer/reports/${reportId}`, { key })).status).toBe(404);
      expect((await service.request(`/api/v1/shared/reports/${token}`)).status).toBe(404);
      for (const id of [reportId, 'not-a-uuid']) {
        const again = await service.request(`/api/v1/developer/reports/${id}`, { method: 'DELETE', key });
        expect(again.status).toBe(404);
      }
    });

    it('answers 204, not 500, when PostgreSQL ends it as the victim of a deadlock with a job’s statement', async () => {
      const { report_id: reportId } = await submit(service, key);
      expect((await waitForReport(service, key, reportId)).body.status).toBe('success');
      // What a job's claim does (claimAndStoreCtes): lock the task, then store statements — whose foreign key
      // locks the report. The deletion locks the report, then the task through the cascade.
      const job = await connect(service.db.databaseUrl!);
      const watcher = await connect(service.db.databaseUrl!);
      try {
        await job.query('begin');
        await job.query('update tasks set updated_at = now() where report_id = $1', [reportId]);
        const deleting = service.request(`/api/v1/developer/reports/${reportId}`, { method: 'DELETE', key });
        await until(
          'the deletion to wait for the task',
          async () =>
            (
              await watcher.query(
                `select 1 from pg_stat_activity
                  where wait_event_type = 'Lock' and query like '%delete from reports where id = $1%'`,
              )
            ).rowCount === 1 || undefined,
          10_000,
        );
        // Waits for the deletion's lock on the report: a deadlock, which PostgreSQL breaks by aborting the
        // deletion (it has waited longer, so its check runs first).
        await job.query(
          `insert into statements (report_id, fiscal_year, sheet_type, lines) values ($1, 1900, 'income', '{}')`,
          [reportId],
        );
        await job.query('rollback');
        const deleted = await deleting;
        expect(deleted.status, deleted.text).toBe(204);
        expect(await rowsOf(service, reportId)).toEqual({
          reports: 0,
          statements: 0,
          analysis_results: 0,
          tasks: 0,
        });
      } finally {
        await job.end();
        await watcher.end();
      }
    });

    it('over GraphQL with an API key and with a console session', async () => {
      const DELETE = 'mutation Delete($id: ID!) { deleteReport(reportId: $id) }';
      const { report_id: first } = await submit(service, key);
      await waitForReport(service, key, first);
      const denied = await graphql(service, await service.newKey('test'), DELETE, { id: first });
      expect(denied.body.errors[0].extensions.code).toBe('NOT_FOUND');
      const byKey = await graphql(service, key, DELETE, { id: first });
      expect(byKey.body).toEqual({ data: { deleteReport: first } });
      expect((await rowsOf(service, first)).reports).toBe(0);

      // The console: sign up, make a key there, submit with it, delete from the session.
      const signUp = await service.request('/api/v1/console/signup', {
        method: 'POST',
        body: { email: `ops-${randomUUID()}@example.com`, password: 'correct horse battery staple' },
      });
      expect(signUp.status, signUp.text).toBe(201);
      const session = {
        Cookie: signUp.headers.get('set-cookie')!.split(';')[0]!,
        'X-CSRF-Token': signUp.body.csrf_token as string,
        'X-Console-Mode': 'test',
      };
      const created = await graphql(
        service,
        undefined,
        'mutation { createApiKey(mode: test) { key } }',
        undefined,
        session,
      );
      const consoleKey = created.body.data.createApiKey.key as string;
      const { report_id: second } = await submit(service, consoleKey);
      await waitForReport(service, consoleKey, second);
      const bySession = await graphql(service, undefined, DELETE, { id: second }, session);
      expect(bySession.body).toEqual({ data: { deleteReport: second } });
      expect(await rowsOf(service, second)).toEqual({
        reports: 0,
        statements: 0,
        analysis_results: 0,
        tasks: 0,
      });
    });
  });

  it('purges reports older than REPORT_RETENTION_DAYS, with what belongs to them, and keeps the rest', async () => {
    const { report_id: old } = await submit(service, key);
    const { report_id: recent } = await submit(service, key);
    await waitForReport(service, key, old);
    await waitForReport(service, key, recent);
    const client = await connect(service.db.databaseUrl!);
    try {
      await client.query("update reports set created_at = now() - interval '31 days' where id = $1", [old]);
      await client.query("update reports set created_at = now() - interval '29 days' where id = $1", [
        recent,
      ]);
    } finally {
      await client.end();
    }
    expect(await purgeExpiredReports(service.services)).toBeGreaterThanOrEqual(1);
    expect(await rowsOf(service, old)).toEqual({ reports: 0, statements: 0, analysis_results: 0, tasks: 0 });
    expect((await rowsOf(service, recent)).reports).toBe(1);
    expect((await service.request(`/api/v1/developer/reports/${recent}`, { key })).body.status).toBe(
      'success',
    );
  });

  it('serves /readyz (503 once shutting down) and /metrics (behind METRICS_TOKEN when set)', async () => {
    const ready = await service.request('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      status: 'ready',
      checks: { database: 'ok', migrations: 'ok', queue: 'ok', shutdown: 'no' },
    });
    // The same app as a process that has begun to stop.
    const stopping: Server = buildApp(service.services, { shuttingDown: () => true }).listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => stopping.once('listening', resolve));
      const address = stopping.address() as { port: number };
      const response = await fetch(`http://127.0.0.1:${address.port}/readyz`);
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({
        code: 'service_unavailable',
        checks: { shutdown: 'in_progress' },
      });
    } finally {
      stopping.close();
    }

    const metrics = await service.request('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const line of [
      /^http_request_duration_seconds_count\{method="POST",route="\/api\/v1\/developer\/reports\/financial",status="202"\} \d+/m,
      /^http_request_duration_seconds_bucket\{le="0\.1",method="GET",route="\/api\/v1\/developer\/reports\/:reportId",status="200"\} \d+/m,
      /^report_submissions_total\{mode="test",outcome="accepted"\} \d+/m,
      /^job_queue_depth\{queue="report-analysis",state="active"\} \d+/m,
      /^worker_pool_utilisation \d/m,
      /^process_cpu_user_seconds_total \d/m,
      /^nodejs_eventloop_lag_seconds \d/m,
    ]) {
      expect(metrics.text).toMatch(line);
    }
    // Paths are never labels: the report ids polled above do not appear.
    expect(metrics.text).not.toMatch(/route="\/api\/v1\/developer\/reports\/[0-9a-f]{8}-/);

    service.services.config.metricsToken = 'scrape-secret';
    try {
      expect((await service.request('/metrics')).status).toBe(401);
      const wrong = await service.request('/metrics', { headers: { Authorization: 'Bearer nope' } });
      expect(wrong.status).toBe(401);
      const right = await service.request('/metrics', { headers: { Authorization: 'Bearer scrape-secret' } });
      expect(right.status).toBe(200);
      expect(right.text).toContain('http_request_duration_seconds');
    } finally {
      service.services.config.metricsToken = null;
    }
  });
});

describe('back-pressure and fairness', () => {
  it('answers 503 queue_full with Retry-After once MAX_QUEUED_JOBS wait, over REST and GraphQL', async () => {
    // An api-role process enqueues but runs nothing: the jobs stay queued.
    const api = await startTestService('postgres', { role: 'api', maxQueuedJobs: 3 });
    try {
      const key = await api.newKey('test');
      for (let i = 0; i < 3; i++) await submit(api, key);
      const full = await api.request(SUBMIT, { method: 'POST', key, body: fixture('general_new-3y') });
      expect(full.status).toBe(503);
      expect(full.headers.get('retry-after')).toBe('5');
      expect(full.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(full.body).toMatchObject({ status: 503, code: 'queue_full' });
      const viaGraphql = await graphql(
        api,
        key,
        'mutation S($input: SubmitFinancialReportInput!) { submitFinancialReport(input: $input) { reportId } }',
        { input: fixture('general_new-3y') },
      );
      expect(viaGraphql.body.errors?.[0]?.extensions?.code).toBe('QUEUE_FULL');
      // Nothing half-written: still exactly three reports.
      const client = await connect(api.db.databaseUrl!);
      try {
        expect((await client.query('select count(*)::int as n from reports')).rows[0].n).toBe(3);
      } finally {
        await client.end();
      }
    } finally {
      await api.close();
    }
  });

  it("runs another account's job while one account's burst waits (JOB_ACCOUNT_CONCURRENCY)", async () => {
    // Twelve slots are three fetchers of four: two fetches racing at the same moment can each count the burst's
    // group as idle and take one of its jobs (the limit is checked per fetch statement), so a third fetcher
    // stays free for the other account whatever the race.
    const service = await startTestService('postgres', { jobConcurrency: 12, jobAccountConcurrency: 1 });
    const blocker = await connect(service.db.databaseUrl!);
    try {
      const burst = await service.newKey('test');
      const other = await service.newKey('test');
      // Jobs stop in their assemble step (analysis results locked), claimed and counted, so claims can be watched.
      await blocker.query('begin');
      await blocker.query('lock table analysis_results in access exclusive mode');
      const burstReports = [];
      for (let i = 0; i < 9; i++) burstReports.push((await submit(service, burst)).task_id);
      const { task_id: otherTask } = await submit(service, other);
      const claimed = async (ids: string[]) =>
        Number(
          (
            await blocker.query('select count(*)::int as n from tasks where id = any($1) and attempts > 0', [
              ids,
            ])
          ).rows[0].n,
        );
      // Without fairness the slots all go to the burst, submitted first, and the other account waits.
      await until(
        'the other account’s job to be claimed',
        async () => ((await claimed([otherTask])) === 1 ? true : undefined),
        20_000,
      );
      // One burst job — two when two fetches raced — holds a slot; the other eight wait for it.
      expect(await claimed(burstReports)).toBeGreaterThanOrEqual(1);
      expect(await claimed(burstReports)).toBeLessThanOrEqual(2);
      await blocker.query('rollback');
      for (const taskId of [...burstReports, otherTask]) {
        await until('every job to finish', async () => {
          const { rows } = await blocker.query('select status from tasks where id = $1', [taskId]);
          return rows[0].status === 'processing' ? undefined : rows[0].status;
        });
      }
      const { rows } = await blocker.query("select count(*)::int as n from tasks where status = 'success'");
      expect(rows[0].n).toBe(10);
    } finally {
      await blocker.end();
      await service.close();
    }
  });

  it('leaves jobs in the queue while the compute pool has a batch queued for every thread, then fetches them together', async () => {
    // One thread: the pool is backlogged at two reports in it. 32 slots for the one account, a poll far away.
    const service = await startTestService('postgres', {
      poolThreads: 1,
      jobConcurrency: 32,
      jobAccountConcurrency: 32,
      jobPollSeconds: 3600,
    });
    const observer = await connect(service.db.databaseUrl!);
    try {
      const key = await service.newKey('test');
      const reports = 32;
      const submitted = await Promise.all(Array.from({ length: reports }, () => submit(service, key)));
      for (const { report_id: reportId } of submitted) await waitForReport(service, key, reportId);
      // Every report ran, each once, with far fewer fetches than reports: a fetch per settle (or per NOTIFY) made
      // one for nearly every report, most of them taking one job into a queue it would only wait in.
      const { rows } = await observer.query(
        "select attempts, count(*)::int as n from tasks where status = 'success' group by 1",
      );
      expect(rows).toEqual([{ attempts: 1, n: reports }]);
      expect(service.services.queue.analysisFetches).toBeLessThanOrEqual(reports / 2);
    } finally {
      await observer.end();
      await service.close();
    }
  });

  it('refills an account’s freed slots at once when another process holds part of its cap, not at the next poll', async () => {
    // A poll far beyond the test's patience: every job below starts from a NOTIFY or from a settle, never from the poll.
    const service = await startTestService('postgres', {
      jobConcurrency: 8,
      jobAccountConcurrency: 3,
      jobPollSeconds: 3600,
    });
    const blocker = await connect(service.db.databaseUrl!);
    const other = await connect(service.db.databaseUrl!);
    try {
      const key = await service.newKey('test');
      const status = async (taskId: string) =>
        (await blocker.query('select status, attempts from tasks where id = $1', [taskId])).rows[0] as {
          status: string;
          attempts: number;
        };
      // Jobs are held after their claim, reading their industry's peers (the fixture's industry is C39).
      await blocker.query('begin');
      await blocker.query('lock table peer_values in access exclusive mode');
      const first = await submit(service, key);
      await until('the first job to be claimed', async () =>
        (await status(first.task_id)).attempts > 0 ? true : undefined,
      );
      // Another worker process holds one more of the account's three slots: a job of the account, active, that this
      // process never fetched (a copy of the first one's row, for a report that does not exist). Committed on its own
      // connection: the blocker's transaction stays open.
      await other.query(
        `insert into pgboss.job (id, name, priority, data, state, retry_limit, retry_count, retry_delay, retry_backoff,
                                 start_after, started_on, expire_seconds, heartbeat_seconds, heartbeat_on, keep_until,
                                 group_id, group_tier, policy, dead_letter)
         select gen_random_uuid(), name, priority, jsonb_build_object('reportId', gen_random_uuid(), 'taskId', gen_random_uuid()),
                'active', 0, 0, retry_delay, retry_backoff, now(), now(), expire_seconds, heartbeat_seconds, now() + interval '1 hour',
                keep_until, group_id, group_tier, policy, null
           from pgboss.job where data ->> 'taskId' = $1`,
        [first.task_id],
      );
      // This process takes the one slot left; the account is then at its cap over both processes and the others wait.
      const rest: Array<{ report_id: string; task_id: string }> = [];
      for (let i = 0; i < 4; i++) rest.push(await submit(service, key));
      const claimed = async () =>
        Number(
          (
            await blocker.query('select count(*)::int as n from tasks where id = any($1) and attempts > 0', [
              rest.map((r) => r.task_id),
            ])
          ).rows[0].n,
        );
      await until('one more job to be claimed', async () => ((await claimed()) === 1 ? true : undefined));
      await blocker.query('rollback');
      // As its jobs end, this process holds the account below its cap (2 of 3, then fewer): the freed slots are
      // refilled as they settle. Before, only a process at the account's cap refilled, so these waited for the poll.
      for (const { task_id: taskId } of [first, ...rest])
        await until(
          'every job to finish without a poll',
          async () => ((await status(taskId)).status === 'success' ? true : undefined),
          20_000,
        );
      // Nothing ran a second attempt: each job was started once, from a NOTIFY or a settle.
      for (const { task_id: taskId } of [first, ...rest]) expect((await status(taskId)).attempts).toBe(1);
    } finally {
      await other.end();
      await blocker.end();
      await service.close();
    }
  });
});
