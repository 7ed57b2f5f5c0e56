/**
 * Webhooks against the real app, on PostgreSQL and on PGlite, with a real receiver on loopback that verifies
 * every signature with the `standardwebhooks` package (an implementation independent of ours: it only shares
 * the package we sign with — the receiver's verify is the spec's reference check).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { runSql } from '../../server/db/sql.ts';
import { markFailed } from '../../server/jobs/analyseReport.ts';
import { failStaleReports, maxPendingSeconds } from '../../server/jobs/sweeper.ts';
import { registry } from '../../server/observability/metrics.ts';
import {
  DELIVERIES_INSERT_SQL,
  DeliveryWorker,
  FETCH_SQL,
  handOffLeaseSql,
  LEASE_SECONDS,
  RETRY_SCHEDULE_SECONDS,
} from '../../server/webhooks/delivery.ts';
import { serialiseEvent, type WebhookEvent } from '../../server/webhooks/payload.ts';
import { type Backend, explainRolledBack, rolledBack } from '../helpers/database.ts';
import { insertReport } from '../helpers/records.ts';
import { fixture, startTestService, type TestService, waitForReport } from '../helpers/service.ts';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A webhook receiver on 127.0.0.1: records every request; each path answers the statuses queued for it (then 200). */
class Receiver {
  readonly received: Received[] = [];
  readonly answers = new Map<string, number[]>();
  /** When the service closed each connection to a trickling or slow path, by path. */
  readonly closed: Array<{ path: string; at: number }> = [];
  /** Requests open at once, at most, per path. */
  readonly concurrency = new Map<string, { now: number; max: number }>();
  server!: Server;
  url = '';
  async start() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.url === '/silent') {
          this.received.push({ path: req.url, headers: req.headers, body: '', at: Date.now() });
          return; // never answers
        }
        if (req.url!.startsWith('/trickle') || req.url!.startsWith('/slow')) {
          const path = req.url!;
          this.received.push({
            path,
            headers: req.headers,
            body: Buffer.concat(chunks).toString(),
            at: Date.now(),
          });
          const open = this.concurrency.get(path) ?? { now: 0, max: 0 };
          open.now++;
          open.max = Math.max(open.max, open.now);
          this.concurrency.set(path, open);
          res.on('close', () => {
            open.now--;
            this.closed.push({ path, at: Date.now() });
          });
          if (path.startsWith('/slow')) {
            setTimeout(() => res.end('ok'), 1500);
            return;
          }
          // Headers at once, then one byte every 100 ms, never finishing: an idle timeout never fires.
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.flushHeaders();
          const timer = setInterval(() => res.write('.'), 100);
          res.on('close', () => clearInterval(timer));
          return;
        }
        this.received.push({
          path: req.url!,
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
          at: Date.now(),
        });
        const status = this.answers.get(req.url!)?.shift() ?? 200;
        if (status >= 300 && status < 400) res.setHeader('Location', `${this.url}/elsewhere`);
        res.statusCode = status;
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  at(path: string) {
    return this.received.filter((r) => r.path === path);
  }
  async waitFor(path: string, count: number, timeoutMs = 20_000) {
    const deadline = Date.now() + timeoutMs;
    while (this.at(path).length < count) {
      if (Date.now() > deadline) throw new Error(`${path}: ${this.at(path).length} of ${count} deliveries`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return this.at(path);
  }
}

function verify(secret: string, request: Received) {
  return new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as {
    type: string;
    data: Record<string, unknown>;
  };
}

describe.each<Backend>(['postgres', 'pglite'])('webhooks on %s', (backend) => {
  let service: TestService;
  const receiver = new Receiver();
  const base = '/api/v1/developer/webhook-endpoints';

  beforeAll(async () => {
    await receiver.start();
    // A short delivery deadline (10 s in production) so that the timeout tests do not wait 10 s; not shorter, as
    // it bounds every exchange, and on a loaded machine a prompt receiver's answer can take a second.
    service = await startTestService(backend, { webhookAllowPrivate: true, webhookTimeoutMs: 2000 });
  });
  afterAll(async () => {
    await service?.close();
    receiver.server?.close();
  });

  async function endpointFor(path: string, key?: string) {
    const k = key ?? (await service.newKey('test'));
    const created = await service.request(base, {
      method: 'POST',
      key: k,
      body: { url: `${receiver.url}${path}` },
    });
    expect(created.status).toBe(201);
    return { key: k, endpoint: created.body };
  }

  it('manages endpoints: the secret shown once, list, get, update, delete', async () => {
    const { key, endpoint } = await endpointFor('/crud');
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(endpoint).toMatchObject({ url: `${receiver.url}/crud`, enabled: true, mode: 'test' });
    const got = await service.request(`${base}/${endpoint.id}`, { key });
    expect(got.status).toBe(200);
    expect(got.body.secret).toBeUndefined();
    expect(got.text).not.toContain(endpoint.secret);
    const list = await service.request(base, { key });
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([endpoint.id]);
    expect(list.text).not.toContain(endpoint.secret);
    const updated = await service.request(`${base}/${endpoint.id}`, {
      method: 'PATCH',
      key,
      body: { description: '财务系统', enabled: false },
    });
    expect(updated.body).toMatchObject({ description: '财务系统', enabled: false });
    // Another account sees nothing.
    const other = await service.newKey('test');
    expect((await service.request(`${base}/${endpoint.id}`, { key: other })).status).toBe(404);
    expect((await service.request(base, { key: other })).body.data).toEqual([]);
    expect((await service.request(`${base}/${endpoint.id}`, { method: 'DELETE', key })).status).toBe(204);
    expect((await service.request(`${base}/${endpoint.id}`, { key })).status).toBe(404);
  });

  it('refuses unsafe URLs: other schemes, http for live, private addresses unless allowed', async () => {
    const key = await service.newKey('test');
    const live = await service.newKey('live');
    const create = (k: string, url: unknown) =>
      service.request(base, { method: 'POST', key: k, body: { url } });
    for (const [k, url] of [
      [key, 'ftp://example.com/hook'],
      [key, 'not a url'],
      [key, 'http://user:pass@example.com/'],
      [live, `${receiver.url}/live`],
    ] as const) {
      const refused = await create(k, url);
      expect(refused.status, url).toBe(422);
      expect(refused.body.errors[0].path).toBe('url');
    }
    service.services.config.webhookAllowPrivate = false;
    try {
      for (const url of [
        `${receiver.url}/x`,
        'http://169.254.169.254/latest',
        'http://[::1]/',
        'http://10.0.0.8/',
        'http://localhost/',
      ]) {
        const refused = await create(key, url);
        expect(refused.status, url).toBe(422);
        expect(refused.body.errors[0].message).toMatch(/loopback, private/);
      }
    } finally {
      service.services.config.webhookAllowPrivate = true;
    }
  });

  it('delivers report.succeeded, signed per Standard Webhooks, and logs the attempt', async () => {
    const { key, endpoint } = await endpointFor('/succeeded');
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key,
      body: fixture('general_new-3y'),
    });
    const report = await waitForReport(service, key, submitted.body.report_id);
    const [delivery] = await receiver.waitFor('/succeeded', 1);
    const event = verify(endpoint.secret, delivery!);
    expect(event.type).toBe('report.succeeded');
    expect(event.data).toEqual({
      report_id: submitted.body.report_id,
      task_id: submitted.body.task_id,
      status: 'success',
      version_no: 1,
      share_url: report.body.share.web_url,
      error_message: null,
    });
    expect(delivery!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    // A tampered body does not verify.
    expect(() =>
      verify(endpoint.secret, { ...delivery!, body: delivery!.body.replace('success', 'failed') }),
    ).toThrow();
    const latencyMs = delivery!.at - new Date(report.body.completed_at).getTime();
    console.info(`[${backend}] webhook received ${latencyMs} ms after the report's completed_at`);

    // The receiver has the request before the service has recorded its answer: wait for the log to say so.
    let log = await service.request(`${base}/${endpoint.id}/deliveries`, { key });
    for (let i = 0; i < 40 && log.body.data[0]?.status !== 'delivered'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      log = await service.request(`${base}/${endpoint.id}/deliveries`, { key });
    }
    expect(log.body.data).toHaveLength(1);
    const entry = log.body.data[0];
    expect(entry).toMatchObject({
      event_type: 'report.succeeded',
      status: 'delivered',
      attempts: 1,
      last_status_code: 200,
    });
    expect(entry.id).toBe(delivery!.headers['webhook-id']);
    const detail = await service.request(`${base}/${endpoint.id}/deliveries/${entry.id}`, { key });
    expect(detail.body.attempt_log).toEqual([
      {
        attempt: 1,
        attempted_at: expect.any(String),
        status_code: 200,
        latency_ms: expect.any(Number),
        error: null,
      },
    ]);
    const metrics = await registry.getSingleMetricAsString('webhook_deliveries_total');
    expect(metrics).toMatch(/outcome="delivered"} [1-9]/);
    // Its lease is released by the statement that recorded the attempt, not left to lapse.
    const [row] = await service.services.db.orm.em
      .fork()
      .getConnection()
      .execute<Array<{ status: string; attempt_started_at: Date | null }>>(
        'select status, attempt_started_at from webhook_deliveries where id = ?',
        [entry.id],
      );
    expect(row).toEqual({ status: 'delivered', attempt_started_at: null });

    // Manual redelivery: the same message again (same webhook-id).
    const again = await service.request(`${base}/${endpoint.id}/deliveries/${entry.id}/redeliver`, {
      method: 'POST',
      key,
    });
    expect(again.status).toBe(202);
    const [, second] = await receiver.waitFor('/succeeded', 2);
    expect(second!.headers['webhook-id']).toBe(entry.id);
    expect(verify(endpoint.secret, second!).type).toBe('report.succeeded');
  });

  it("hands a report's event to the delivery worker of the process that assembled it: sent at once, no fetch, once", async () => {
    const { key } = await endpointFor('/handed');
    const worker = service.services.deliveries as DeliveryWorker;
    const before = worker.handedOff;
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key,
      body: fixture('general_new-3y'),
    });
    await waitForReport(service, key, submitted.body.report_id);
    await receiver.waitFor('/handed', 1);
    expect(worker.handedOff).toBe(before + 1);
    // Taken by the hand-off, not also by a fetch: one attempt, one request.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(receiver.at('/handed')).toHaveLength(1);
    const [row] = await runSql<{ attempts: number; status: string; leased: boolean }>(
      service.services.db.orm.em.fork(),
      `select attempts, status, attempt_started_at is not null as leased from webhook_deliveries
        where event_key = $1`,
      [`report.succeeded:${submitted.body.report_id}`],
    );
    expect(row).toEqual({ attempts: 1, status: 'delivered', leased: false });
  });

  it('leases an event for hand-off only with a slot free in its account and no earlier new event waiting; a fetch takes it once that lease lapses', async () => {
    const key = await service.newKey('test');
    const { endpoint: first } = await endpointFor('/handoff-a', key);
    const { endpoint: second } = await endpointFor('/handoff-b', key);
    const em = service.services.db.orm.em.fork();
    const [owner] = await runSql<{ account_id: string }>(
      em,
      'select account_id from webhook_endpoints where id = $1',
      [first.id],
    );
    const accountId = owner!.account_id;
    const cap = service.services.config.webhookAccountConcurrency;
    // The assemble statement's insert, alone: the event for each enabled endpoint, which of them leased.
    const record = (tx: EntityManager, eventKey: string, handOff: boolean) =>
      runSql<{ endpoint_id: string; leased: boolean }>(
        tx,
        `${DELIVERIES_INSERT_SQL('$1', "'test'", '$2', "'webhook.test'", "'{}'", 'now()', handOffLeaseSql('$3', '$1', '$4'))}
         returning endpoint_id, attempt_started_at is not null as leased`,
        [accountId, eventKey, handOff, cap],
      );
    const leased = (rows: Array<{ endpoint_id: string; leased: boolean }>) =>
      rows.filter((row) => row.leased).map((row) => row.endpoint_id);
    const holdLeases = (tx: EntityManager, count: number, at = 'now()') =>
      runSql(
        tx,
        `insert into webhook_deliveries (id, endpoint_id, account_id, event_key, event_type, payload, status, attempts,
                                         priority, created_at, next_attempt_at, attempt_started_at)
         select gen_random_uuid(), $1, $2, 'held-' || g, 'webhook.test', '{}', 'pending', 0, 1, now(), now(), ${at}
           from generate_series(1, $3) g`,
        [first.id, accountId, count],
      );
    // Each case in a transaction rolled back: the service's worker never sees its rows.
    const smallest = [first.id, second.id].sort()[0];
    await rolledBack(em, async (tx) => {
      // A slot free: the first endpoint's delivery (by id) is leased, the other waits for a fetch.
      expect(leased(await record(tx, 'free', true))).toEqual([smallest]);
      // This process has no slot to give.
      expect(leased(await record(tx, 'no-slot', false))).toEqual([]);
    });
    await rolledBack(em, async (tx) => {
      // The account holds as many leases as its cap (over every process): nothing more for it.
      await holdLeases(tx, cap);
      expect(leased(await record(tx, 'at-cap', true))).toEqual([]);
    });
    await rolledBack(em, async (tx) => {
      // An earlier new event of the account is due and unleased (its lease lapsed): it goes first, by the fetch.
      await holdLeases(tx, 1, `now() - make_interval(secs => ${LEASE_SECONDS + 1})`);
      expect(leased(await record(tx, 'behind', true))).toEqual([]);
    });
    // A delivery handed off to a process that died before its attempt: no fetch takes it while its lease holds,
    // and the next fetch once it has lapsed.
    await rolledBack(em, async (tx) => {
      await runSql(tx, 'update webhook_endpoints set enabled = false where id = $1', [second.id]);
      const [handed] = await record(tx, 'orphaned', true);
      expect(handed).toEqual({ endpoint_id: first.id, leased: true });
      const fetch = () =>
        runSql<{ endpoint_id: string }>(tx, FETCH_SQL, [cap, 16, LEASE_SECONDS]).then((rows) =>
          rows.filter((row) => row.endpoint_id === first.id),
        );
      expect(await fetch()).toEqual([]);
      await runSql(
        tx,
        `update webhook_deliveries set attempt_started_at = now() - make_interval(secs => $2 + 1)
          where event_key = 'orphaned' and endpoint_id = $1`,
        [first.id, LEASE_SECONDS],
      );
      expect(await fetch()).toHaveLength(1);
    });
  });

  it('gives back a delivery handed off to a worker that began to stop: another sends it, once', async () => {
    const { endpoint } = await endpointFor('/given-back');
    const em = service.services.db.orm.em.fork();
    // A second worker in this process, stopping while the statement that hands it a delivery runs.
    const worker = new DeliveryWorker(service.services);
    await worker.start();
    expect(worker.reserveHandOff()).toBe(true);
    const stopped = worker.stop(Date.now() + 5000);
    const [handed] = await runSql<{ id: string; endpoint_id: string }>(
      em,
      `${DELIVERIES_INSERT_SQL('(select account_id from webhook_endpoints where id = $1)', "'test'", "'given-back'", "'webhook.test'", "'{}'", 'now()', 'now()')}
         and e.id = $1
       returning id, endpoint_id`,
      [endpoint.id],
    );
    worker.adoptHandOff(
      {
        ...handed!,
        url: endpoint.url,
        secret: endpoint.secret,
        previous_secret: null,
        previous_secret_expires_at: null,
      },
      '{}',
    );
    await stopped;
    expect(worker.handedOff).toBe(0);
    // Released at once (not left to lapse for LEASE_SECONDS): the service's own worker sends it within its polls.
    await receiver.waitFor('/given-back', 1, 5000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.at('/given-back')).toHaveLength(1);
    expect(receiver.at('/given-back')[0]!.headers['webhook-id']).toBe(handed!.id);
  });

  it('sends a test event and a real event in one serialisation (what is signed is what a re-serialiser makes)', async () => {
    const { key, endpoint } = await endpointFor('/same-format');
    expect((await service.request(`${base}/${endpoint.id}/test`, { method: 'POST', key })).status).toBe(202);
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key,
      body: fixture('general_new-3y'),
    });
    await waitForReport(service, key, submitted.body.report_id);
    const deliveries = await receiver.waitFor('/same-format', 2);
    const types = deliveries.map((d) => verify(endpoint.secret, d).type).sort();
    expect(types).toEqual(['report.succeeded', 'webhook.test']);
    for (const delivery of deliveries) {
      const parsed = JSON.parse(delivery.body) as WebhookEvent;
      // Byte for byte what JSON.stringify of the parsed body gives: compact, the envelope's keys in one order.
      expect(delivery.body).toBe(JSON.stringify(parsed));
      expect(delivery.body).toBe(serialiseEvent(parsed));
      expect(Object.keys(parsed)).toEqual(['type', 'timestamp', 'data']);
      expect(parsed.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }
  });

  /** The account that owns an endpoint (the reports inserted for it must belong to that account). */
  async function accountOf(endpointId: string): Promise<string> {
    const rows = await service.services.db.orm.em
      .fork()
      .getConnection()
      .execute<Array<{ account_id: string }>>(`select account_id from webhook_endpoints where id = ?`, [
        endpointId,
      ]);
    return rows[0]!.account_id;
  }

  it('delivers report.failed from markFailed, once however often it runs', async () => {
    const { key, endpoint } = await endpointFor('/failed');
    const accountId = await accountOf(endpoint.id);
    const { reportId, taskId } = await insertReport(service.services, accountId, { status: 'pending' });
    await markFailed(service.services, { reportId, taskId }, 'The statements could not be read.');
    await markFailed(service.services, { reportId, taskId }, 'The statements could not be read.');
    const [delivery] = await receiver.waitFor('/failed', 1);
    const event = verify(endpoint.secret, delivery!);
    expect(event).toMatchObject({
      type: 'report.failed',
      data: {
        report_id: reportId,
        task_id: taskId,
        status: 'failed',
        share_url: null,
        error_message: 'The statements could not be read.',
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.at('/failed')).toHaveLength(1);
    expect((await service.request(`${base}/${endpoint.id}/deliveries`, { key })).body.data).toHaveLength(1);
  });

  it('emits report.failed for a report the stale-report sweeper fails', async () => {
    const { endpoint } = await endpointFor('/swept');
    const accountId = await accountOf(endpoint.id);
    const old = new Date(Date.now() - (maxPendingSeconds(service.services.config) + 60) * 1000);
    const { reportId, taskId } = await insertReport(service.services, accountId, {
      status: 'pending',
      createdAt: old,
    });
    expect(await failStaleReports(service.services)).toBeGreaterThanOrEqual(1);
    const [delivery] = await receiver.waitFor('/swept', 1);
    const event = verify(endpoint.secret, delivery!);
    expect(event).toMatchObject({
      type: 'report.failed',
      data: { report_id: reportId, task_id: taskId, status: 'failed', share_url: null },
    });
    expect(String(event.data.error_message)).toMatch(/did not finish/);
  });

  it('sends test-mode events only to test-mode endpoints', async () => {
    const email = `modes-${Date.now()}-${backend}@example.com`;
    const testKey = await service.newKey('test', email);
    const { endpoint } = await endpointFor('/test-mode', testKey);
    // A live endpoint of the same account (https is required for live, so it is written directly here).
    await service.services.db.orm.em
      .fork()
      .getConnection()
      .execute(
        `insert into webhook_endpoints (id, account_id, mode, url, enabled, secret, created_at, updated_at)
         select gen_random_uuid(), account_id, 'live', ?, true, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', now(), now()
           from webhook_endpoints where id = ?`,
        [`${receiver.url}/live-mode`, endpoint.id],
      );
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key: testKey,
      body: fixture('general_new-3y'),
    });
    await waitForReport(service, testKey, submitted.body.report_id);
    await receiver.waitFor('/test-mode', 1);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.at('/live-mode')).toHaveLength(0);
  });

  it('retries a failed attempt on the schedule, does not follow redirects, and stops at 410', async () => {
    expect(RETRY_SCHEDULE_SECONDS.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(24 * 3600);
    const { key, endpoint } = await endpointFor('/flaky');
    receiver.answers.set('/flaky', [302]);
    const sent = await service.request(`${base}/${endpoint.id}/test`, { method: 'POST', key });
    expect(sent.status).toBe(202);
    expect(sent.body.event_type).toBe('webhook.test');
    const [first, second] = await receiver.waitFor('/flaky', 2, 30_000);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(receiver.at('/elsewhere')).toHaveLength(0);
    let detail = await service.request(`${base}/${endpoint.id}/deliveries/${sent.body.id}`, { key });
    for (let i = 0; i < 40 && detail.body.status !== 'delivered'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      detail = await service.request(`${base}/${endpoint.id}/deliveries/${sent.body.id}`, { key });
    }
    expect(detail.body).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(
      detail.body.attempt_log.map((a: { status_code: number; error: string | null }) => [
        a.status_code,
        a.error,
      ]),
    ).toEqual([
      [302, 'redirect (302) not followed'],
      [200, null],
    ]);

    const { key: goneKey, endpoint: gone } = await endpointFor('/gone');
    receiver.answers.set('/gone', [410]);
    const test = await service.request(`${base}/${gone.id}/test`, { method: 'POST', key: goneKey });
    await receiver.waitFor('/gone', 1);
    let state = await service.request(`${base}/${gone.id}`, { key: goneKey });
    for (let i = 0; i < 40 && state.body.enabled; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      state = await service.request(`${base}/${gone.id}`, { key: goneKey });
    }
    expect(state.body).toMatchObject({ enabled: false, disabled_reason: expect.stringContaining('410') });
    const failed = await service.request(`${base}/${gone.id}/deliveries/${test.body.id}`, { key: goneKey });
    expect(failed.body).toMatchObject({ status: 'failed', last_status_code: 410, next_attempt_at: null });
  }, 40_000);

  it("releases an attempt's lease in the statement that records the attempt: never one without the other", async () => {
    const { key, endpoint } = await endpointFor('/settled');
    const sent = await service.request(`${base}/${endpoint.id}/test`, { method: 'POST', key });
    expect(sent.status).toBe(202);
    // Every read is one snapshot of the delivery, taken as often as the database answers.
    const observe = () =>
      service.services.db.orm.em
        .fork()
        .getConnection()
        .execute<Array<{ attempts: number; status: string; leased: boolean }>>(
          `select attempts, status, attempt_started_at is not null as leased from webhook_deliveries where id = ?`,
          [sent.body.id],
        );
    const seen: Array<{ attempts: number; status: string; leased: boolean }> = [];
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const rows = await observe();
      expect(rows).toHaveLength(1);
      seen.push(rows[0]!);
      if (rows[0]!.status === 'delivered') break;
      // PGlite answers in process: let the service's timers run between reads.
      await new Promise((resolve) => setImmediate(resolve));
    }
    const recorded = seen.filter((row) => row.attempts > 0);
    expect(recorded.length).toBeGreaterThan(0);
    // The attempt recorded and its lease still held would hold a slot of its account until the lease lapsed.
    expect(recorded.filter((row) => row.leased)).toEqual([]);
    expect(recorded.at(-1)).toEqual({ attempts: 1, status: 'delivered', leased: false });
    // Before the attempt was recorded, the loop saw the delivery pending.
    expect(seen[0]!.status).toBe('pending');
  });

  it('passes over a delivery whose lease another attempt holds, and takes it once that lease has lapsed', async () => {
    const { key, endpoint } = await endpointFor('/slow-twin');
    const sent = await service.request(`${base}/${endpoint.id}/test`, { method: 'POST', key });
    expect(sent.status).toBe(202);
    await receiver.waitFor('/slow-twin', 1);
    let detail = await service.request(`${base}/${endpoint.id}/deliveries/${sent.body.id}`, { key });
    for (let i = 0; i < 80 && detail.body.status !== 'delivered'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      detail = await service.request(`${base}/${endpoint.id}/deliveries/${sent.body.id}`, { key });
    }
    expect(detail.body.status).toBe('delivered');
    const em = service.services.db.orm.em.fork();
    // Pending and due again, with its lease held, as by an attempt running in another process.
    await runSql(
      em,
      `update webhook_deliveries set status = 'pending', next_attempt_at = now(), attempt_started_at = now()
        where id = $1`,
      [sent.body.id],
    );
    // Several of the worker's polls (250 ms) go by: none sends it.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(receiver.at('/slow-twin')).toHaveLength(1);
    // That process died: its lease lapses (LEASE_SECONDS), and the delivery is sent again, once.
    await runSql(
      em,
      `update webhook_deliveries set attempt_started_at = now() - make_interval(secs => $2 + 1) where id = $1`,
      [sent.body.id, LEASE_SECONDS],
    );
    await receiver.waitFor('/slow-twin', 2);
    for (let i = 0; i < 80 && detail.body.attempts < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      detail = await service.request(`${base}/${endpoint.id}/deliveries/${sent.body.id}`, { key });
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.at('/slow-twin')).toHaveLength(2);
    expect(receiver.concurrency.get('/slow-twin')!.max).toBe(1);
    detail = await service.request(`${base}/${endpoint.id}/deliveries/${sent.body.id}`, { key });
    expect(detail.body).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('is managed over GraphQL too: create, list, test, read the delivery log', async () => {
    const key = await service.newKey('test');
    const gql = async (query: string, variables: Record<string, unknown> = {}) => {
      const response = await service.request('/graphql', { method: 'POST', key, body: { query, variables } });
      expect(response.body.errors).toBeUndefined();
      return response.body.data;
    };
    const created = await gql(
      `mutation($input: WebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret endpoint { id url enabled } } }`,
      { input: { url: `${receiver.url}/graphql` } },
    );
    const { secret, endpoint } = created.createWebhookEndpoint;
    expect(secret).toMatch(/^whsec_/);
    expect((await gql('{ webhookEndpoints { id } }')).webhookEndpoints).toEqual([{ id: endpoint.id }]);
    const sent = await gql('mutation($id: ID!) { testWebhookEndpoint(id: $id) { id eventType } }', {
      id: endpoint.id,
    });
    expect(sent.testWebhookEndpoint.eventType).toBe('webhook.test');
    const [delivery] = await receiver.waitFor('/graphql', 1);
    expect(verify(secret, delivery!).type).toBe('webhook.test');
    let read: { status: string; attemptLog: Array<{ statusCode: number }> } | undefined;
    for (let i = 0; i < 40 && read?.status !== 'delivered'; i++) {
      read = (
        await gql(
          'query($e: ID!, $d: ID!) { webhookDelivery(endpointId: $e, deliveryId: $d) { status attemptLog { statusCode } } }',
          {
            e: endpoint.id,
            d: sent.testWebhookEndpoint.id,
          },
        )
      ).webhookDelivery;
      if (read?.status !== 'delivered') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(read).toEqual({ status: 'delivered', attemptLog: [{ statusCode: 200 }] });
    expect(
      (await gql('mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }', { id: endpoint.id }))
        .deleteWebhookEndpoint,
    ).toBe(endpoint.id);
  });

  it('gives up an attempt the endpoint does not answer in time, and schedules the next', async () => {
    const { key, endpoint } = await endpointFor('/silent');
    const sent = await service.request(`${base}/${endpoint.id}/test`, { method: 'POST', key });
    await receiver.waitFor('/silent', 1);
    let detail = await service.request(`${base}/${endpoint.id}/deliveries/${sent.body.id}`, { key });
    for (let i = 0; i < 200 && detail.body.attempts === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      detail = await service.request(`${base}/${endpoint.id}/deliveries/${sent.body.id}`, { key });
    }
    expect(detail.body).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null });
    expect(detail.body.attempt_log[0].error).toMatch(/no complete response within 2 s/);
    expect(new Date(detail.body.next_attempt_at).getTime()).toBeGreaterThan(Date.now());
    expect(await registry.getSingleMetricAsString('webhook_deliveries_total')).toMatch(
      /outcome="timeout"} [1-9]/,
    );
    await service.request(`${base}/${endpoint.id}`, { method: 'DELETE', key });
  });

  it('cuts an attempt at its deadline even while the receiver keeps trickling bytes, and logs it', async () => {
    const { key, endpoint } = await endpointFor('/trickle');
    const sent = await service.request(`${base}/${endpoint.id}/test`, { method: 'POST', key });
    const [request] = await receiver.waitFor('/trickle', 1);
    let detail = await service.request(`${base}/${endpoint.id}/deliveries/${sent.body.id}`, { key });
    for (let i = 0; i < 200 && detail.body.attempts === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      detail = await service.request(`${base}/${endpoint.id}/deliveries/${sent.body.id}`, { key });
    }
    // The deadline (2 s here) covers the whole body: the connection is closed then, not when bytes stop.
    const closed = receiver.closed.find((c) => c.path === '/trickle');
    expect(closed).toBeDefined();
    expect(closed!.at - request!.at).toBeLessThan(3500);
    expect(detail.body).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null });
    expect(detail.body.attempt_log).toEqual([
      expect.objectContaining({ attempt: 1, status_code: null, error: 'no complete response within 2 s' }),
    ]);
    await service.request(`${base}/${endpoint.id}`, { method: 'DELETE', key });
  });

  it("fetches without walking an account's backlog: the fetch reads as much with 2,000 more queued", async () => {
    const { key, endpoint } = await endpointFor('/backlog');
    const em = service.services.db.orm.em.fork();
    const cap = service.services.config.webhookAccountConcurrency;
    const queue = (count: number, tag: string, leased: boolean) =>
      runSql(
        em,
        `insert into webhook_deliveries (id, endpoint_id, account_id, event_key, event_type, payload, status, attempts,
                                         priority, created_at, next_attempt_at, attempt_started_at)
         select gen_random_uuid(), e.id, e.account_id, $2 || g, 'webhook.test', '{}', 'pending', 0, 1, now(), now(),
                case when $4 then now() end
           from webhook_endpoints e, generate_series(1, $3) g where e.id = $1`,
        [endpoint.id, tag, count, leased],
      );
    // The account at its cap (its leases held, as by attempts running in other processes), and a backlog behind it.
    await queue(cap, 'held-', true);
    await queue(10, 'queued-', false);
    // What one fetch reads (EXPLAIN's buffers), in a transaction rolled back: it takes nothing of this account.
    const buffersOfOneFetch = async () =>
      (await explainRolledBack(em, FETCH_SQL, [cap, 16, LEASE_SECONDS])).buffers;
    const small = await buffersOfOneFetch();
    await queue(2000, 'backlog-', false);
    await runSql(em, 'analyze webhook_deliveries');
    const large = await buffersOfOneFetch();
    // A fetch that filtered one queue of every account's deliveries would read the 2,000 (dozens of pages more).
    expect(large).toBeLessThanOrEqual(small + 10);
    expect(receiver.at('/backlog')).toHaveLength(0);
    await service.request(`${base}/${endpoint.id}`, { method: 'DELETE', key });
  });

  it('delivers what a process of the earlier build records during a rolling deploy (no account on the row)', async () => {
    const { key, endpoint } = await endpointFor('/earlier-build');
    const em = service.services.db.orm.em.fork();
    // The earlier build's insert (server/webhooks/delivery.ts before the deliveries' own queue): no account, no rank.
    const [row] = await runSql<{ id: string; account_id: string; priority: number }>(
      em,
      `insert into webhook_deliveries (id, endpoint_id, event_key, event_type, payload, status, attempts, created_at,
                                       next_attempt_at)
       values (gen_random_uuid(), $1, 'webhook.test:earlier', 'webhook.test', '{"earlier":true}', 'pending', 0, now(),
               now())
       returning id, account_id, priority`,
      [endpoint.id],
    );
    const [owner] = await runSql<{ account_id: string }>(
      em,
      'select account_id from webhook_endpoints where id = $1',
      [endpoint.id],
    );
    expect(row).toMatchObject({ account_id: owner!.account_id, priority: 1 });
    const [request] = await receiver.waitFor('/earlier-build', 1);
    expect(request!.headers['webhook-id']).toBe(row!.id);
    await service.request(`${base}/${endpoint.id}`, { method: 'DELETE', key });
  });

  it('schedules a retry ranked after new events, in its account', async () => {
    const { key, endpoint } = await endpointFor('/ranked');
    receiver.answers.set('/ranked', [500]);
    const sent = await service.request(`${base}/${endpoint.id}/test`, { method: 'POST', key });
    await receiver.waitFor('/ranked', 1);
    const em = service.services.db.orm.em.fork();
    let rows: Array<{ priority: number; account_id: string; attempts: number; retry_in: number }> = [];
    for (let i = 0; i < 60 && rows[0]?.attempts !== 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      rows = await em.getConnection().execute(
        `select priority, account_id, attempts, extract(epoch from next_attempt_at - now())::float as retry_in
           from webhook_deliveries where id = ?`,
        [sent.body.id],
      );
    }
    const [account] = await em
      .getConnection()
      .execute('select account_id from webhook_endpoints where id = ?', [endpoint.id]);
    expect(rows[0]).toMatchObject({ priority: 0, account_id: account!.account_id, attempts: 1 });
    expect(rows[0]!.retry_in).toBeGreaterThan(0);
    expect(rows[0]!.retry_in).toBeLessThanOrEqual(RETRY_SCHEDULE_SECONDS[0]);
    await service.request(`${base}/${endpoint.id}`, { method: 'DELETE', key });
  });

  it("drains an account's backlog at its cap with one fetch per slot refill, not a second that finds nothing", async () => {
    const { key, endpoint } = await endpointFor('/refill');
    const worker = service.services.deliveries as DeliveryWorker;
    const em = service.services.db.orm.em.fork();
    const cap = service.services.config.webhookAccountConcurrency;
    const count = 6 * cap;
    const before = worker.statements;
    // Due together, committed at once: the account's cap lets the worker take `cap` at a time.
    await runSql(
      em,
      `insert into webhook_deliveries (id, endpoint_id, account_id, event_key, event_type, payload, status, attempts,
                                       priority, created_at, next_attempt_at)
       select gen_random_uuid(), e.id, e.account_id, 'refill-' || g, 'webhook.test', json_build_object('n', g)::text,
              'pending', 0, 1, now(), now()
         from webhook_endpoints e, generate_series(1, $2) g where e.id = $1`,
      [endpoint.id, count],
    );
    const started = Date.now();
    await receiver.waitFor('/refill', count, 30_000);
    // Until the last attempts are settled too.
    for (let i = 0; i < 100; i++) {
      const [left] = await runSql<{ n: number }>(
        em,
        `select count(*)::int as n from webhook_deliveries where endpoint_id = $1 and status <> 'delivered'`,
        [endpoint.id],
      );
      if (left!.n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const after = worker.statements;
    const fetches = after.fetches - before.fetches;
    const settles = after.settles - before.settles;
    // A fetch per settle (each refills the slots it freed), the fetch that found the first ones, and the idle polls
    // of the time it took (one every 250 ms at most); a second, empty fetch after each refill doubles the first term.
    const polls = Math.ceil((Date.now() - started) / 250) + 1;
    expect(settles).toBeGreaterThanOrEqual(count / cap);
    expect(fetches).toBeLessThanOrEqual(settles + 1 + polls);
    console.info(
      `[${backend}] ${count} deliveries at a cap of ${cap}: ${fetches} fetches, ${settles} settles (${polls} idle polls at most)`,
    );
    await service.request(`${base}/${endpoint.id}`, { method: 'DELETE', key });
  }, 40_000);

  it("sends an account's new events before its retries that are due, and no more at once than its cap", async () => {
    const { key, endpoint } = await endpointFor('/slow-ranked');
    const em = service.services.db.orm.em.fork();
    const cap = service.services.config.webhookAccountConcurrency;
    // Due retries (the oldest first) and new events, committed together: the worker's next fetch sees them all.
    await runSql(
      em,
      `insert into webhook_deliveries (id, endpoint_id, account_id, event_key, event_type, payload, status, attempts,
                                       priority, created_at, next_attempt_at)
       select gen_random_uuid(), e.id, e.account_id, k.key, 'webhook.test', json_build_object('key', k.key)::text,
              'pending', k.attempts, k.priority, now(), now() - make_interval(secs => k.age)
         from webhook_endpoints e,
              (select 'retry-' || g as key, 1 as attempts, 0 as priority, 600 - g as age from generate_series(1, $2) g
               union all
               select 'new-' || g, 0, 1, 0 from generate_series(1, $2) g) k
        where e.id = $1`,
      [endpoint.id, cap],
    );
    const arrived = await receiver.waitFor('/slow-ranked', 2 * cap, 30_000);
    const keys = arrived.map((request) => (JSON.parse(request.body) as { key: string }).key);
    expect(new Set(keys.slice(0, cap))).toEqual(
      new Set(Array.from({ length: cap }, (_, i) => `new-${i + 1}`)),
    );
    expect(new Set(keys.slice(cap))).toEqual(
      new Set(Array.from({ length: cap }, (_, i) => `retry-${i + 1}`)),
    );
    expect(receiver.concurrency.get('/slow-ranked')!.max).toBe(cap);
    await service.request(`${base}/${endpoint.id}`, { method: 'DELETE', key });
  }, 40_000);

  it('holds the 20-endpoint cap under 30 concurrent creates', async () => {
    const key = await service.newKey('test');
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        service.request(base, { method: 'POST', key, body: { url: `${receiver.url}/cap/${i}` } }),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(20);
    const refused = answers.filter((a) => a.status === 422);
    expect(refused).toHaveLength(10);
    expect(refused[0]!.body.errors).toEqual([
      { path: 'url', message: 'at most 20 endpoints per account and mode' },
    ]);
    expect((await service.request(base, { key })).body.data).toHaveLength(20);
  });

  it('answers a NUL in the description with 422 naming the field, on create and update', async () => {
    const key = await service.newKey('test');
    const created = await service.request(base, {
      method: 'POST',
      key,
      body: { url: `${receiver.url}/nul`, description: 'a\u0000b' },
    });
    expect(created.status).toBe(422);
    expect(created.body.errors).toEqual([
      { path: 'description', message: 'must not contain a NUL character (U+0000)' },
    ]);
    const { endpoint } = await endpointFor('/nul', key);
    const patched = await service.request(`${base}/${endpoint.id}`, {
      method: 'PATCH',
      key,
      body: { description: '\u0000' },
    });
    expect(patched.status).toBe(422);
    expect(patched.body.errors[0].path).toBe('description');
  });

  it('rotates the secret: both secrets sign for the grace period', async () => {
    const { key, endpoint } = await endpointFor('/rotate');
    const rotated = await service.request(`${base}/${endpoint.id}/rotate-secret`, { method: 'POST', key });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    const grace = new Date(rotated.body.previous_secret_expires_at).getTime() - Date.now();
    expect(grace).toBeGreaterThan(23.9 * 3600 * 1000);
    await service.request(`${base}/${endpoint.id}/test`, { method: 'POST', key });
    const [delivery] = await receiver.waitFor('/rotate', 1);
    expect(String(delivery!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(endpoint.secret, delivery!).type).toBe('webhook.test');
    expect(verify(rotated.body.secret, delivery!).type).toBe('webhook.test');
  });
});

describe('webhook limits and revocation, per account', () => {
  let service: TestService;
  const receiver = new Receiver();
  const base = '/api/v1/developer/webhook-endpoints';
  const PASSWORD = 'correct horse battery staple';

  beforeAll(async () => {
    await receiver.start();
    const defaults = loadConfig({}).rateLimits;
    service = await startTestService('postgres', {
      webhookAllowPrivate: true,
      webhookTestEventsPerMinute: 3,
      webhookMaxPendingDeliveries: 5,
      rateLimits: { ...defaults, submissions: { points: 8, windowSeconds: 3600 } },
    });
  });
  afterAll(async () => {
    await service?.close();
    receiver.server?.close();
  });

  async function endpointFor(key: string, path: string) {
    const created = await service.request(base, {
      method: 'POST',
      key,
      body: { url: `${receiver.url}${path}` },
    });
    expect(created.status, created.text).toBe(201);
    return created.body as { id: string; secret: string };
  }

  const gql = (query: string, init: { key?: string; headers?: Record<string, string> }) =>
    service.request('/graphql', { method: 'POST', body: { query }, ...init });

  it('caps test events per minute per account, REST and GraphQL alike (429, Retry-After)', async () => {
    const key = await service.newKey('test');
    const endpoint = await endpointFor(key, '/per-minute');
    expect((await service.request(`${base}/${endpoint.id}/test`, { method: 'POST', key })).status).toBe(202);
    // Three aliased fields in one GraphQL request: the second and third pass the cap (3 per minute).
    const aliased = await gql(
      `mutation { a: testWebhookEndpoint(id: "${endpoint.id}") { id } b: testWebhookEndpoint(id: "${endpoint.id}") { id }
        c: testWebhookEndpoint(id: "${endpoint.id}") { id } }`,
      { key },
    );
    expect(aliased.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual([
      'TOO_MANY_REQUESTS',
    ]);
    const log = await service.request(`${base}/${endpoint.id}/deliveries`, { key });
    expect(log.body.data).toHaveLength(3);
    const refused = await service.request(`${base}/${endpoint.id}/test`, { method: 'POST', key });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(refused.body.detail).toMatch(/At most 3 webhook test events per minute per account/);
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    // Another key of the same account shares the account's cap; another account does not.
    const sibling = await service.newKey('test', await emailOf(key));
    expect(
      (await service.request(`${base}/${endpoint.id}/test`, { method: 'POST', key: sibling })).status,
    ).toBe(429);
    const other = await service.newKey('test');
    const theirs = await endpointFor(other, '/per-minute-other');
    expect((await service.request(`${base}/${theirs.id}/test`, { method: 'POST', key: other })).status).toBe(
      202,
    );
  });

  async function emailOf(key: string): Promise<string> {
    const [row] = await service.services.db.orm.em
      .fork()
      .getConnection()
      .execute(
        `select a.email from accounts a join api_keys k on k.account_id = a.id where k.key_hash = encode(sha256(?::bytea), 'hex')`,
        [key],
      );
    return row!.email;
  }

  it('refuses test events and redeliveries while the account has too many deliveries pending', async () => {
    const key = await service.newKey('test');
    const endpoint = await endpointFor(key, '/pending');
    const sent = await service.request(`${base}/${endpoint.id}/test`, { method: 'POST', key });
    expect(sent.status).toBe(202);
    await receiver.waitFor('/pending', 1);
    // The receiver has the test event; its attempt settles a moment later (until then it is a sixth one pending).
    let detail = await service.request(`${base}/${endpoint.id}/deliveries/${sent.body.id}`, { key });
    for (let i = 0; i < 40 && detail.body.status !== 'delivered'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      detail = await service.request(`${base}/${endpoint.id}/deliveries/${sent.body.id}`, { key });
    }
    expect(detail.body.status).toBe('delivered');
    // Five report events still pending (recorded directly: receivers that keep failing leave them so for hours).
    await service.services.db.orm.em
      .fork()
      .getConnection()
      .execute(
        `insert into webhook_deliveries (id, endpoint_id, account_id, event_key, event_type, payload, status, attempts,
                                         priority, created_at, next_attempt_at)
         select gen_random_uuid(), e.id, e.account_id, 'report.succeeded:' || g, 'report.succeeded', '{}', 'pending', 1,
                0, now(), now() + interval '1 hour'
           from webhook_endpoints e, generate_series(1, 5) g where e.id = ?`,
        [endpoint.id],
      );
    const refused = await service.request(`${base}/${endpoint.id}/test`, { method: 'POST', key });
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toMatch(/5 webhook deliveries pending \(at most 5\)/);
    expect(refused.headers.get('retry-after')).toBe('30');
    const redelivery = await service.request(`${base}/${endpoint.id}/deliveries/${sent.body.id}/redeliver`, {
      method: 'POST',
      key,
    });
    expect(redelivery.status).toBe(429);
  });

  it('never runs two attempts of one delivery at once: a redelivery while one is in flight waits it out', async () => {
    const key = await service.newKey('test');
    const endpoint = await endpointFor(key, '/slow-lease');
    const sent = await service.request(`${base}/${endpoint.id}/test`, { method: 'POST', key });
    await receiver.waitFor('/slow-lease', 1);
    const again = await service.request(`${base}/${endpoint.id}/deliveries/${sent.body.id}/redeliver`, {
      method: 'POST',
      key,
    });
    expect(again.status).toBe(202);
    let detail = await service.request(`${base}/${endpoint.id}/deliveries/${sent.body.id}`, { key });
    for (let i = 0; i < 80 && detail.body.status !== 'delivered'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      detail = await service.request(`${base}/${endpoint.id}/deliveries/${sent.body.id}`, { key });
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.concurrency.get('/slow-lease')!.max).toBe(1);
    expect(receiver.at('/slow-lease')).toHaveLength(1);
    detail = await service.request(`${base}/${endpoint.id}/deliveries/${sent.body.id}`, { key });
    expect(detail.body).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(detail.body.attempt_log).toHaveLength(1);
  });

  it('spends the submissions budget on GraphQL webhook mutations, as on their REST twins', async () => {
    const key = await service.newKey('test');
    const endpoint = await endpointFor(key, '/budget'); // 1 of 8
    const rotations = Array.from(
      { length: 7 },
      (_, i) => `r${i}: rotateWebhookEndpointSecret(id: "${endpoint.id}") { secret }`,
    );
    const answer = await gql(`mutation { ${rotations.join(' ')} }`, { key }); // 7 more: 8 of 8
    expect(answer.body.errors).toBeUndefined();
    const over = await gql(`mutation { deleteWebhookEndpoint(id: "${endpoint.id}") }`, { key });
    expect(over.body.errors[0].extensions.code).toBe('TOO_MANY_REQUESTS');
    const rest = await service.request(`${base}/${endpoint.id}`, { method: 'DELETE', key });
    expect(rest.status).toBe(429);
  });

  async function signIn(email: string, kind: 'signup' | 'login') {
    const response = await service.request(`/api/v1/console/${kind}`, {
      method: 'POST',
      body: { email, password: PASSWORD },
    });
    expect(response.status, response.text).toBe(kind === 'signup' ? 201 : 200);
    return {
      Cookie: response.headers.get('set-cookie')!.split(';')[0]!,
      'X-CSRF-Token': response.body.csrf_token as string,
      'X-Console-Mode': 'test',
    };
  }

  const endpointsSeenBy = async (session: Record<string, string>) =>
    (await gql('{ webhookEndpoints { id url enabled disabledReason } }', { headers: session })).body.data
      .webhookEndpoints as Array<{ id: string; enabled: boolean; disabledReason: string | null }>;

  it('disables the endpoints a key created when the key is revoked; reports no longer reach them', async () => {
    const email = `revoke-${randomUUID()}@example.com`;
    const owner = await signIn(email, 'signup');
    const minted = await gql('mutation { createApiKey(mode: test) { key apiKey { id } } }', {
      headers: owner,
    });
    expect(minted.body.errors, minted.text).toBeUndefined();
    const { key, apiKey } = minted.body.data.createApiKey;
    const leaked = await endpointFor(key, '/revoked-key');
    const own = await gql(
      `mutation { createWebhookEndpoint(input: { url: "${receiver.url}/owner" }) { endpoint { id } } }`,
      { headers: owner },
    );
    const ownId = own.body.data.createWebhookEndpoint.endpoint.id;
    const revoked = await gql(`mutation { revokeApiKey(id: "${apiKey.id}") { status } }`, { headers: owner });
    expect(revoked.body.data.revokeApiKey.status).toBe('revoked');
    const seen = await endpointsSeenBy(owner);
    expect(seen.find((e) => e.id === leaked.id)).toMatchObject({
      enabled: false,
      disabledReason: expect.stringContaining('API key that created it was revoked'),
    });
    expect(seen.find((e) => e.id === ownId)).toMatchObject({ enabled: true, disabledReason: null });
    // A report of the account now reaches the owner's endpoint only.
    const other = await gql('mutation { createApiKey(mode: test) { key } }', { headers: owner });
    const submitter = other.body.data.createApiKey.key as string;
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key: submitter,
      body: fixture('general_new-3y'),
    });
    await waitForReport(service, submitter, submitted.body.report_id);
    await receiver.waitFor('/owner', 1);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.at('/revoked-key')).toHaveLength(0);
  });

  it('disables the endpoints other console sessions created when the password changes', async () => {
    const email = `thief-${randomUUID()}@example.com`;
    const owner = await signIn(email, 'signup');
    const thief = await signIn(email, 'login');
    const create = (session: Record<string, string>, path: string) =>
      gql(
        `mutation { createWebhookEndpoint(input: { url: "${receiver.url}${path}" }) { endpoint { id } } }`,
        {
          headers: session,
        },
      ).then((r) => r.body.data.createWebhookEndpoint.endpoint.id as string);
    const thiefs = await create(thief, '/thief');
    const owners = await create(owner, '/owners');
    const changed = await service.request('/api/v1/console/password', {
      method: 'POST',
      headers: owner,
      body: { current_password: PASSWORD, new_password: 'Plum-orchard 7 violet kettles' },
    });
    // Every session ends with a password change; the answer opens the owner's new one (issue 21).
    expect(changed.status, changed.text).toBe(200);
    const renewed = {
      ...owner,
      Cookie: changed.headers.get('set-cookie')!.split(';')[0]!,
      'X-CSRF-Token': changed.body.csrf_token as string,
    };
    const seen = await endpointsSeenBy(renewed);
    expect(seen.find((e) => e.id === thiefs)).toMatchObject({
      enabled: false,
      disabledReason: expect.stringContaining('password was changed'),
    });
    expect(seen.find((e) => e.id === owners)).toMatchObject({ enabled: true });
    // The owner's endpoints passed to the new session: a second password change leaves them enabled.
    const again = await service.request('/api/v1/console/password', {
      method: 'POST',
      headers: renewed,
      body: {
        current_password: 'Plum-orchard 7 violet kettles',
        new_password: 'Quiet harbour 9 amber lanterns',
      },
    });
    expect(again.status, again.text).toBe(200);
    const after = await endpointsSeenBy({
      ...renewed,
      Cookie: again.headers.get('set-cookie')!.split(';')[0]!,
      'X-CSRF-Token': again.body.csrf_token as string,
    });
    expect(after.find((e) => e.id === owners)).toMatchObject({ enabled: true });
  });
});
