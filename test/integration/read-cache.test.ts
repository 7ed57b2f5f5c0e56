/**
 * Polling a finished report with its ETag is answered from the process's memory (server/services/readCache.ts):
 * no database round trip — proved by answering it while `api_keys` and `reports` are locked ACCESS EXCLUSIVE —
 * and nothing stale: a change made by another process (here: another connection, bypassing this process's code)
 * reaches the cache by NOTIFY, and one made through this process's own code reaches it before the call returns.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { retireBenchmarkSet, setsForIndustry } from '../../server/benchmarks/sets.ts';
import { flushAccessLogs } from '../../server/middlewares/accessLog.ts';
import { REPORT_ROUTE } from '../../server/middlewares/cachedNotModified.ts';
import { httpRequestDuration } from '../../server/observability/metrics.ts';
import { revokeApiKeyByValue } from '../../server/services/apiKeys.ts';
import { rotateShareToken } from '../../server/services/shareSettings.ts';
import { connect } from '../helpers/database.ts';
import { fixture, startTestService, type TestService, waitForReport } from '../helpers/service.ts';

/** Retries `check` until it passes (a NOTIFY is asynchronous), at most `ms`. */
async function eventually(check: () => Promise<void>, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** `read`'s answer while `tables` are locked ACCESS EXCLUSIVE by `other`: it fails if `read` waits for them. */
async function whileLocked<T>(other: pg.Client, tables: string, read: () => Promise<T>): Promise<T> {
  await other.query('begin');
  try {
    await other.query(`lock table ${tables} in access exclusive mode`);
    return await Promise.race([
      read(),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`the read waited for the locked ${tables}`)), 3000),
      ),
    ]);
  } finally {
    await other.query('rollback');
  }
}

describe('the read cache (postgres)', () => {
  let service: TestService;
  let other: pg.Client;

  const submitAndWait = async (key: string) => {
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key,
      body: fixture('general_new-3y'),
    });
    expect(submitted.status).toBe(202);
    const finished = await waitForReport(service, key, submitted.body.report_id);
    expect(finished.body.status).toBe('success');
    return { reportId: submitted.body.report_id as string, etag: finished.headers.get('etag')! };
  };
  const read = (key: string, reportId: string, etag?: string) =>
    service.request(`/api/v1/developer/reports/${reportId}`, {
      key,
      headers: etag ? { 'If-None-Match': etag } : {},
    });

  beforeAll(async () => {
    service = await startTestService('postgres');
    other = await connect(service.db.databaseUrl!);
  });
  afterAll(async () => {
    await other?.end();
    await service?.close();
  });

  it('answers a 304 without the database: api_keys and reports locked', async () => {
    const key = await service.newKey('test');
    const { reportId, etag } = await submitAndWait(key);
    const warm = await read(key, reportId, etag);
    expect(warm.status).toBe(304);
    const answered = await whileLocked(other, 'api_keys, reports', () => read(key, reportId, etag));
    expect(answered.status).toBe(304);
    expect(answered.headers.get('etag')).toBe(etag);
    expect(answered.headers.get('cache-control')).toBe('private, no-cache');
    expect(answered.text).toBe('');
    // A tag that does not match goes to the database and answers the body, with the same tag as before.
    const stale = await read(key, reportId, 'W/"not-the-tag"');
    expect(stale.status).toBe(200);
    expect(stale.headers.get('etag')).toBe(etag);
    // Another account's key (same mode) learns nothing from the cache: 404 as before.
    const stranger = await read(await service.newKey('test'), reportId, etag);
    expect(stranger.status).toBe(404);
  });

  it('sees a report changed by another process (NOTIFY), and by its own code at once', async () => {
    const key = await service.newKey('test');
    const { reportId, etag } = await submitAndWait(key);
    expect((await read(key, reportId, etag)).status).toBe(304);
    await other.query('update reports set share_is_public = false where id = $1', [reportId]);
    let changedTag = '';
    await eventually(async () => {
      const after = await read(key, reportId, etag);
      expect(after.status).toBe(200);
      expect(after.body.share.is_public).toBe(false);
      changedTag = after.headers.get('etag')!;
    });
    expect(changedTag).not.toBe(etag);
    expect((await read(key, reportId, changedTag)).status).toBe(304);

    // Through this process's own code: the very next request sees the new token.
    const accountId = (
      await other.query<{ account_id: string }>('select account_id from reports where id = $1', [reportId])
    ).rows[0]!.account_id;
    const rotated = await rotateShareToken(service.services.db.orm.em.fork(), accountId, reportId);
    const next = await read(key, reportId, changedTag);
    expect(next.status).toBe(200);
    expect(next.body.share.share_token).toBe(rotated.shareToken);

    // Deleted by another process: 404, not a 304 from memory.
    const tag = next.headers.get('etag')!;
    expect((await read(key, reportId, tag)).status).toBe(304);
    await other.query('delete from reports where id = $1', [reportId]);
    await eventually(async () => expect((await read(key, reportId, tag)).status).toBe(404));
  });

  it('refuses a key revoked by another process (NOTIFY), and by its own code on the next request', async () => {
    const key = await service.newKey('test');
    const { reportId, etag } = await submitAndWait(key);
    expect((await read(key, reportId, etag)).status).toBe(304);
    await other.query(
      `update api_keys set revoked_at = now() where key_hash = encode(sha256($1::bytea), 'hex')`,
      [key],
    );
    await eventually(async () => {
      const refused = await read(key, reportId, etag);
      expect(refused.status).toBe(401);
      expect(refused.body.detail).toMatch(/revoked/);
    });

    const second = await service.newKey('test');
    const own = await submitAndWait(second);
    expect((await read(second, own.reportId, own.etag)).status).toBe(304);
    expect(await revokeApiKeyByValue(service.services.db.orm.em.fork(), second)).toBe(true);
    const refused = await read(second, own.reportId, own.etag);
    expect(refused.status).toBe(401);
  });

  it("answers a poll ahead of the routers with the route's own 304: headers, budget, access line and metrics", async () => {
    const email = `poller-${randomUUID()}@example.com`;
    const key = await service.newKey('test', email);
    const { reportId, etag } = await submitAndWait(key);
    // A second app on the same services: its own reads budget for a fresh key of the account (40 points, so the
    // key's lease holds 4), and an access log that can be read.
    const { config } = service.services;
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const app = buildApp({
      ...service.services,
      logger,
      config: {
        ...config,
        rateLimits: { ...config.rateLimits, reads: { points: 40, windowSeconds: 10 } },
        accountRateLimits: { ...config.accountRateLimits, reads: { points: 1000, windowSeconds: 10 } },
      },
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => app.once('listening', resolve));
    try {
      const poller = await service.newKey('test', email);
      const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}/api/v1/developer/reports/${reportId}`;
      const poll = () => fetch(url, { headers: { 'X-API-Key': poller, 'If-None-Match': etag } });
      const count304 = async () =>
        (await httpRequestDuration.get()).values.find(
          (value) =>
            value.metricName === 'http_request_duration_seconds_count' &&
            value.labels.route === REPORT_ROUTE &&
            value.labels.status === '304',
        )?.value ?? 0;
      // Through the routers: the key is not yet verified here, and the tag not kept.
      service.services.readCache!.forgetReport(reportId);
      const routed = await poll();
      // Ahead of them: the key verified, the tag kept, the lease holds points.
      const before = await count304();
      const shortcut = await poll();
      expect(await count304()).toBe(before + 1);
      for (const response of [routed, shortcut]) {
        expect(response.status).toBe(304);
        expect(await response.text()).toBe('');
      }
      const varying = new Set(['x-request-id', 'date', 'ratelimit']);
      const fixed = (response: Response) => [...response.headers].filter(([name]) => !varying.has(name));
      expect(fixed(shortcut)).toEqual(fixed(routed));
      expect([...shortcut.headers.keys()]).toEqual([...routed.headers.keys()]);
      // One point each, from the key's counter and the account's.
      const remaining = (response: Response) =>
        [...response.headers.get('ratelimit')!.matchAll(/"(\w+)";r=(\d+)/g)].map(([, policy, r]) => [
          policy,
          Number(r),
        ]);
      expect(remaining(routed)).toEqual([
        ['reads', 39],
        ['reads_account', expect.any(Number)],
      ]);
      expect(remaining(shortcut)).toEqual([
        ['reads', 38],
        ['reads_account', (remaining(routed)[1]![1] as number) - 1],
      ]);
      // Every answer spends a point, whichever path gave it: 40 in the window, then the routers' 429.
      const statuses = [routed.status, shortcut.status];
      while (statuses.length < 41) statuses.push((await poll()).status);
      expect(statuses.slice(0, 40).every((status) => status === 304)).toBe(true);
      expect(statuses[40]).toBe(429);
      flushAccessLogs();
      // The access log writes its lines in batches (accessLog.ts).
      const logged = lines
        .flatMap((batch) => batch.split('\n').filter(Boolean))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.log === 'access' && line.requestId === shortcut.headers.get('x-request-id'));
      expect(logged).toEqual([
        expect.objectContaining({
          method: 'GET',
          route: REPORT_ROUTE,
          status: 304,
          key: poller.slice(0, 12),
        }),
      ]);
      // Answered after the server's other 'request' listeners, as Koa answers: one of them may still set a header
      // (runtime.ts sets Connection: close while shutting down). Its own key's budget is fresh.
      app.on('request', (_req, res) => res.setHeader('X-Later-Listener', 'set'));
      const later = await service.newKey('test', email);
      const warm = await fetch(url, { headers: { 'X-API-Key': later, 'If-None-Match': etag } });
      const ahead = await fetch(url, { headers: { 'X-API-Key': later, 'If-None-Match': etag } });
      for (const response of [warm, ahead]) {
        expect(response.status).toBe(304);
        expect(response.headers.get('x-later-listener')).toBe('set');
      }
    } finally {
      await new Promise((resolve) => app.close(resolve));
    }
  });

  it('keeps the benchmark sets a job matches against, and drops them when a set is loaded or retired', async () => {
    const cache = service.services.readCache!;
    const em = service.services.db.orm.em.fork();
    const codes = ['C', 'C38'];
    const before = await setsForIndustry(em, codes, cache);
    // From memory: answered while the sets' tables are locked, the very same sets.
    const again = await whileLocked(other, 'benchmark_sets, benchmark_rows', () =>
      setsForIndustry(em, codes, cache),
    );
    expect(again).toBe(before);
    // Loaded by another process (as the CLI does: the set and its rows in one transaction).
    const id = randomUUID();
    await other.query('begin');
    await other.query(
      `insert into benchmark_sets (id, name, source, edition, data_year, row_count, loaded_at)
       values ($1::uuid, 'read cache test', 'test', $2, 2024, 1, now())`,
      [id, id],
    );
    await other.query(
      `insert into benchmark_rows (set_id, line, industry_code, size_class, indicator, p50)
       values ($1, 1, 'C38', 'all', 'roe', 8.5)`,
      [id],
    );
    await other.query('commit');
    await eventually(async () => {
      expect((await setsForIndustry(em, codes, cache)).map((set) => set.id)).toContain(id);
    });
    // Retired by this process's own code: gone on the next read.
    await retireBenchmarkSet(em, id);
    expect((await setsForIndustry(em, codes, cache)).map((set) => set.id)).not.toContain(id);
  });
});

describe('the read cache (embedded PGlite)', () => {
  it('listens, and a change made beside the service code reaches it', async () => {
    const service = await startTestService('pglite');
    try {
      expect(service.services.readCache?.listening).toBe(true);
      const key = await service.newKey('test');
      const submitted = await service.request('/api/v1/developer/reports/financial', {
        method: 'POST',
        key,
        body: fixture('general_new-3y'),
      });
      const finished = await waitForReport(service, key, submitted.body.report_id);
      const reportId = submitted.body.report_id as string;
      const etag = finished.headers.get('etag')!;
      const read = () =>
        service.request(`/api/v1/developer/reports/${reportId}`, { key, headers: { 'If-None-Match': etag } });
      expect((await read()).status).toBe(304);
      await service.services.db.pglite!.query('update reports set share_is_public = false where id = $1', [
        reportId,
      ]);
      await eventually(async () => {
        const after = await read();
        expect(after.status).toBe(200);
        expect(after.body.share.is_public).toBe(false);
      });
    } finally {
      await service.close();
    }
  });
});
