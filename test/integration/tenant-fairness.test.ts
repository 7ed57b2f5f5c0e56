/**
 * No tenant can slow another (issue 21, the parts that are not webhooks), over real HTTP with an attacker
 * account and a victim account: budgets per account as well as per key (also across two app instances),
 * capped keys under concurrency, console sessions on the same budgets, GraphQL reads priced by cost, per-address
 * throttles keyed by /64, the share link limited per address, no 5xx from Accept-Encoding or text, and an
 * idempotent replay after deletion.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { operationCost } from '../../server/graphql/limits.ts';
import { schema } from '../../server/graphql/schema.ts';
import { accessLog, flushAccessLogs } from '../../server/middlewares/accessLog.ts';
import { metricsMiddleware } from '../../server/middlewares/metrics.ts';
import { registry } from '../../server/observability/metrics.ts';
import { connect } from '../helpers/database.ts';
import { graphql } from '../helpers/graphql.ts';
import { fixture, startTestService, type TestService } from '../helpers/service.ts';

const PASSWORD = 'correct horse battery staple';
const SUBMIT = '/api/v1/developer/reports/financial';
const KEY_SUBMISSIONS = 40;
const ACCOUNT_SUBMISSIONS = 80;
const KEY_READS = 100;
const COST_PER_READ = 100;

async function listenOn(app: Koa): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve(undefined))),
  };
}

/** Runs `tasks` with at most `width` in flight. */
async function pooled<T>(tasks: Array<() => Promise<T>>, width: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) {
        const i = next++;
        results[i] = await tasks[i]!();
      }
    }),
  );
  return results;
}

describe('tenant fairness', () => {
  let service: TestService;

  beforeAll(async () => {
    const { rateLimits, accountRateLimits } = loadConfig({});
    // Long windows: what a burst gets must not depend on how fast this machine sends it.
    service = await startTestService('postgres', {
      trustProxyHops: 1,
      graphqlCostPerRead: COST_PER_READ,
      rateLimits: {
        ...rateLimits,
        reads: { points: KEY_READS, windowSeconds: 60 },
        submissions: { points: KEY_SUBMISSIONS, windowSeconds: 60 },
        signup: { points: 3, windowSeconds: 3600 },
        share_exports: { points: 3, windowSeconds: 60 },
        share_reads: { points: 5, windowSeconds: 60 },
      },
      accountRateLimits: {
        ...accountRateLimits,
        reads: { points: 1_000, windowSeconds: 60 },
        submissions: { points: ACCOUNT_SUBMISSIONS, windowSeconds: 60 },
      },
    });
  });
  afterAll(async () => {
    await service?.close();
  });

  const signUp = async (client: string) => {
    const email = `tenant-${randomUUID()}@example.com`;
    const response = await service.request('/api/v1/console/signup', {
      method: 'POST',
      body: { email, password: PASSWORD },
      headers: { 'X-Forwarded-For': client },
    });
    expect(response.status, response.text).toBe(201);
    return {
      email,
      cookie: response.headers.get('set-cookie')!.split(';')[0]!,
      csrf: response.body.csrf_token as string,
    };
  };
  const asConsole = (who: { cookie: string; csrf: string }, query: string) =>
    graphql(service, undefined, query, undefined, { Cookie: who.cookie, 'X-CSRF-Token': who.csrf });

  describe('budgets per account', () => {
    it('caps a burst of 400 submissions over 10 keys at the account ceiling, across two app instances', async () => {
      const second = await listenOn(
        buildApp({ ...service.services, config: { ...service.services.config } }),
      );
      try {
        const email = `attacker-${randomUUID()}@example.com`;
        const keys = await Promise.all(Array.from({ length: 10 }, () => service.newKey('test', email)));
        const victim = await service.newKey('test');
        const statuses = await pooled(
          Array.from({ length: 400 }, (_, i) => async () => {
            const url = i % 2 ? second.url : service.url;
            const response = await fetch(`${url}${SUBMIT}`, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json', 'X-API-Key': keys[i % 10]! },
              body: '{"nothing":1}',
            });
            await response.arrayBuffer();
            return response.status;
          }),
          40,
        );
        // Admitted submissions answer 422 (an empty body); refused ones 429. Exactly the ceiling got through.
        expect(statuses.filter((s) => s !== 429)).toHaveLength(ACCOUNT_SUBMISSIONS);
        expect(statuses.filter((s) => s === 429)).toHaveLength(400 - ACCOUNT_SUBMISSIONS);
        // An eleventh key, with a budget of its own untouched: the account's ceiling refuses it.
        const eleventh = await service.newKey('test', email);
        const refused = await service.request(SUBMIT, { method: 'POST', key: eleventh, body: {} });
        expect(refused.status).toBe(429);
        expect(refused.body.detail).toMatch(/account's keys and sessions together/);
        expect(refused.headers.get('ratelimit')).toMatch(/"submissions_account";r=0;t=\d+/);
        // Another tenant is not affected.
        const other = await service.request(SUBMIT, { method: 'POST', key: victim, body: {} });
        expect(other.status).toBe(422);
      } finally {
        await second.close();
      }
    });

    it('caps keys per account and mode, also with 31 concurrent creations', async () => {
      const owner = await signUp('198.51.100.1');
      const created = await Promise.all(
        Array.from({ length: 31 }, () => asConsole(owner, 'mutation { createApiKey(mode: live) { key } }')),
      );
      const made = created.filter((r) => r.body.data?.createApiKey?.key);
      const refused = created.filter((r) => r.body.errors?.[0]?.extensions?.code === 'TOO_MANY_API_KEYS');
      expect(made).toHaveLength(20);
      expect(refused).toHaveLength(11);
      const keys = await asConsole(owner, '{ apiKeys { id mode status } }');
      expect(keys.body.data.apiKeys.filter((k: { mode: string }) => k.mode === 'live')).toHaveLength(20);
      // The other mode has a cap of its own; revoking a key makes room.
      expect(
        (await asConsole(owner, 'mutation { createApiKey(mode: test) { key } }')).body.data,
      ).not.toBeNull();
      const victimId = keys.body.data.apiKeys[0].id;
      await asConsole(owner, `mutation { revokeApiKey(id: "${victimId}") { id } }`);
      const again = await asConsole(owner, 'mutation { createApiKey(mode: live) { key } }');
      expect(again.body.data.createApiKey.key).toMatch(/^ek_live_/);
    });

    it('makes console sessions spend the same reads budget as keys (300 requests, not all 200)', async () => {
      const who = await signUp('198.51.100.2');
      const statuses = await pooled(
        Array.from({ length: 300 }, () => async () => (await asConsole(who, '{ viewer { email } }')).status),
        20,
      );
      expect(statuses.filter((s) => s === 200)).toHaveLength(KEY_READS);
      expect(statuses.filter((s) => s === 429)).toHaveLength(300 - KEY_READS);
    });

    it('makes console writes spend the submissions budget, as REST writes do', async () => {
      const who = await signUp('198.51.100.3');
      const before = await asConsole(who, 'mutation { createApiKey(mode: test) { key } }');
      expect(before.body.data.createApiKey.key).toMatch(/^ek_test_/);
      // Spend the rest of the session's submissions with GraphQL deletions of unknown reports.
      for (let i = 0; i < KEY_SUBMISSIONS - 1; i++)
        await asConsole(who, `mutation { deleteReport(reportId: "${randomUUID()}") }`);
      const refused = await asConsole(who, 'mutation { createApiKey(mode: test) { key } }');
      expect(refused.body.errors[0].extensions.code).toBe('TOO_MANY_REQUESTS');
    });
  });

  describe('reads priced by cost', () => {
    const COSTLY = `{ reports(first: 100) { edges { node { reportId analysis { slug riskItems { code } } } } } }`;

    it('charges a GraphQL read ceil(cost / GRAPHQL_COST_PER_READ) points of reads', async () => {
      const key = await service.newKey('test');
      const cheap = await graphql(service, key, '{ __typename }');
      expect(cheap.status).toBe(200);
      expect(cheap.headers.get('ratelimit')).toMatch(new RegExp(`^"reads";r=${KEY_READS - 1};`));
      const cost = operationCost(schema, (await import('graphql')).parse(COSTLY));
      expect(cost).toBeGreaterThan(COST_PER_READ);
      const points = Math.min(Math.ceil(cost / COST_PER_READ), KEY_READS);
      const costly = await graphql(service, key, COSTLY);
      expect(costly.status, costly.text).toBe(200);
      const remaining = Number(/^"reads";r=(\d+)/.exec(costly.headers.get('ratelimit')!)![1]);
      expect(remaining).toBe(Math.max(0, KEY_READS - 1 - points));
      // Once the window cannot pay for it, the costly query is refused (429) before it runs; a cheap one is not.
      let refused = costly;
      for (let i = 0; i < 5 && refused.status === 200; i++) refused = await graphql(service, key, COSTLY);
      expect(refused.status).toBe(429);
      expect(refused.body.errors[0].extensions.code).toBe('TOO_MANY_REQUESTS');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    });
  });

  describe('per-address throttles', () => {
    it('counts an IPv6 /64 as one client: sign-ups, exports and share reads', async () => {
      const signup = (client: string) =>
        service.request('/api/v1/console/signup', {
          method: 'POST',
          body: { email: `six-${randomUUID()}@example.com`, password: PASSWORD },
          headers: { 'X-Forwarded-For': client },
        });
      const rotating = Array.from({ length: 5 }, (_, i) => `2001:db8:aa:bb:${i + 1}::${i + 7}`);
      const statuses = [];
      for (const client of rotating) statuses.push((await signup(client)).status);
      expect(statuses).toEqual([201, 201, 201, 429, 429]);
      expect((await signup('2001:db8:aa:cc::1')).status).toBe(201);
      // The IPv4-mapped form of an address is that address.
      expect((await signup('::ffff:192.0.2.77')).status).toBe(201);

      const token = 'x'.repeat(43);
      const exportFrom = async (client: string) =>
        (
          await service.request(`/api/v1/shared/reports/${token}/export.xlsx`, {
            headers: { 'X-Forwarded-For': client },
          })
        ).status;
      const exports = [];
      for (let i = 0; i < 5; i++) exports.push(await exportFrom(`2001:db8:ee:1::${i + 1}`));
      expect(exports).toEqual([404, 404, 404, 429, 429]);
    });

    it('limits the public share JSON and page per client address', async () => {
      const client = '2001:db8:5:5::1';
      const read = (path: string, from = client) =>
        service.request(path, { headers: { 'X-Forwarded-For': from, Accept: 'text/html' } });
      const statuses = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await read(`/api/v1/shared/reports/${'y'.repeat(43)}`)).status);
      for (let i = 0; i < 3; i++) statuses.push((await read(`/shared/reports/${'y'.repeat(43)}`)).status);
      expect(statuses).toEqual([404, 404, 404, 404, 404, 429]);
      const refused = await read(`/api/v1/shared/reports/${'y'.repeat(43)}`, '2001:db8:5:5:ffff::9');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('ratelimit-policy')).toBe('"share_reads";q=5;w=60');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await read(`/api/v1/shared/reports/${'y'.repeat(43)}`, '203.0.113.200')).status).toBe(404);
    });
  });

  describe('no 5xx from a header or text', () => {
    it('parses Accept-Encoding per RFC 9110: refusing identity or every coding is never a 500', async () => {
      const cases: Array<[string, string | null]> = [
        ['identity;q=0', null],
        ['*;q=0', null],
        ['gzip;q=-1', null],
        ['br;q=0, gzip;q=0', null],
        ['gzip;q=1.5, br;q=0', null],
        ['identity;q=0, gzip', 'gzip'],
        ['gzip;q=0.5, br;q=0.4', 'gzip'],
        ['*', 'br'],
        ['BR', 'br'],
      ];
      for (const [header, encoding] of cases) {
        const response = await fetch(`${service.url}/api/v1/openapi.json`, {
          headers: { 'Accept-Encoding': header },
          // fetch would decode; the raw header is what matters.
        });
        await response.arrayBuffer();
        expect(response.status, header).toBe(200);
        expect(response.headers.get('content-encoding'), header).toBe(encoding);
      }
    });

    it('logs and counts the status actually sent when an error escapes the problem mapping', async () => {
      const lines: Array<Record<string, unknown>> = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
      const app = new Koa();
      app.silent = true;
      app.use(accessLog(logger));
      app.use(metricsMiddleware());
      app.use(() => {
        throw new Error('escaped');
      });
      const server = await listenOn(app);
      try {
        const response = await fetch(`${server.url}/escape-${randomUUID()}`);
        expect(response.status).toBe(500);
        await new Promise((resolve) => setTimeout(resolve, 50));
        // Access lines are written in batches (at most ACCESS_LOG_FLUSH_MS later); flushed here at once.
        expect(lines.find((line) => line.msg === 'request')).toBeUndefined();
        flushAccessLogs();
        expect(lines.find((line) => line.msg === 'request')).toMatchObject({ status: 500 });
        expect(await registry.metrics()).toMatch(/http_request_duration_seconds_count\{[^}]*status="500"/);
      } finally {
        await server.close();
      }
    });

    it('refuses control characters in every REST text field and query parameter with 422 naming it', async () => {
      const key = await service.newKey('test');
      const nul = await service.request('/api/v1/developer/reports?enterprise_name=%00x', { key });
      expect(nul.status).toBe(422);
      expect(nul.body.errors).toEqual([{ path: 'enterprise_name', message: expect.stringContaining('NUL') }]);
      const body = fixture('general_new-3y') as unknown as Record<string, unknown>;
      body.enterprise_info = { industry: 'manufacturing\u0007' };
      const control = await service.request(SUBMIT, { method: 'POST', key, body });
      expect(control.status).toBe(422);
      expect(control.body.errors).toContainEqual({
        path: 'enterprise_info.industry',
        message: expect.stringContaining('U+0007'),
      });
    });

    it('answers a deeply nested body with an Idempotency-Key with 422, not 500', async () => {
      const key = await service.newKey('test');
      const deep = `${'{"a":['.repeat(5_000)}1${']}'.repeat(5_000)}`;
      const response = await service.request(SUBMIT, {
        method: 'POST',
        key,
        body: deep,
        headers: { 'Idempotency-Key': randomUUID() },
      });
      expect(response.status, response.text).toBe(422);
      expect(response.body.detail).toMatch(/nests deeper than 32 levels/);
    });
  });

  it('replays a deleted report’s submission as a new report, never the dead id', async () => {
    const key = await service.newKey('test');
    const idempotencyKey = randomUUID();
    const body = fixture('general_new-3y');
    const submit = () =>
      service.request(SUBMIT, { method: 'POST', key, body, headers: { 'Idempotency-Key': idempotencyKey } });
    const first = await submit();
    expect(first.status).toBe(202);
    const replay = await submit();
    expect(replay.body.report_id).toBe(first.body.report_id);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const deleted = await service.request(`/api/v1/developer/reports/${first.body.report_id}`, {
      method: 'DELETE',
      key,
    });
    expect(deleted.status).toBe(204);
    const after = await submit();
    expect(after.status).toBe(202);
    expect(after.body.report_id).not.toBe(first.body.report_id);
    expect(after.headers.get('idempotent-replayed')).toBeNull();
    expect((await service.request(`/api/v1/developer/reports/${after.body.report_id}`, { key })).status).toBe(
      200,
    );
    // …and that new report is what the key replays from now on.
    expect((await submit()).body.report_id).toBe(after.body.report_id);

    // Deleted again, then two duplicates at once: one new report, never two (the key's row is re-checked as
    // committed — the foreign key nulls its report_id — not through a snapshot that misses the first's report).
    for (let round = 0; round < 3; round++) {
      const current = (await submit()).body.report_id as string;
      expect(
        (await service.request(`/api/v1/developer/reports/${current}`, { method: 'DELETE', key })).status,
      ).toBe(204);
      const both = await Promise.all([submit(), submit()]);
      const statuses = both.map((response) => response.status).sort();
      expect([
        [202, 202],
        [202, 409],
      ]).toContainEqual(statuses);
      const ids = new Set(both.filter((r) => r.status === 202).map((r) => r.body.report_id as string));
      expect(ids.size, `round ${round}: ${[...ids].join(', ')}`).toBe(1);
      const list = await service.request('/api/v1/developer/reports?limit=100', { key });
      expect(list.body.data.map((report: { report_id: string }) => report.report_id)).toEqual([...ids]);
    }
  });

  it('answers 409 at once while another transaction holds the key, and records once it is free', async () => {
    const key = await service.newKey('test');
    const idempotencyKey = randomUUID();
    const body = fixture('general_new-3y');
    const submit = () =>
      service.request(SUBMIT, { method: 'POST', key, body, headers: { 'Idempotency-Key': idempotencyKey } });
    const em = service.services.db.orm.em.fork();
    const [account] = await em
      .getConnection()
      .execute<Array<{ account_id: string }>>(
        `select account_id from api_keys where key_hash = encode(sha256(?::bytea), 'hex')`,
        [key],
      );
    // What a request whose key statement ran and whose transaction has not committed holds.
    const holder = await connect(service.db.databaseUrl!);
    try {
      await holder.query('begin');
      await holder.query(
        `select pg_advisory_xact_lock(hashtextextended($1::text || ' ' || $2::text || ' ' || $3::text, 7))`,
        [account!.account_id, 'test', idempotencyKey],
      );
      const started = Date.now();
      const inUse = await submit();
      expect(inUse.status).toBe(409);
      expect(inUse.body.code).toBe('idempotency_key_in_use');
      expect(inUse.headers.get('retry-after')).toBe('1');
      expect(Date.now() - started).toBeLessThan(5000);
      await holder.query('rollback');
      const recorded = await submit();
      expect(recorded.status).toBe(202);
      expect(recorded.headers.get('idempotent-replayed')).toBeNull();
      expect((await submit()).body.report_id).toBe(recorded.body.report_id);
    } finally {
      await holder.end();
    }
  });
});
