/**
 * Issue 13's HTTP conventions against the real app, on PostgreSQL and on PGlite: idempotent submission,
 * asynchronous-operation headers, the report list, compression, conditional reads, problem bodies and pages.
 */

import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHousekeeping } from '../../server/jobs/housekeeping.ts';
import { PROBLEM_CODES } from '../../server/rest/problemPages.ts';
import type { Backend } from '../helpers/database.ts';
import { holdIdempotencyKey } from '../helpers/records.ts';
import { fixture, startTestService, type TestService, waitForReport } from '../helpers/service.ts';

const SUBMIT = '/api/v1/developer/reports/financial';

/** A raw GET (fetch would decode the body): status, headers and the bytes as sent. */
function rawGet(url: string, headers: Record<string, string>) {
  return new Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    body: Buffer;
  }>((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe.each<Backend>(['postgres', 'pglite'])('API conventions on %s', (backend) => {
  let service: TestService;
  let key: string;
  let reportId: string;
  let taskId: string;

  beforeAll(async () => {
    service = await startTestService(backend);
    key = await service.newKey('test');
    const submitted = await service.request(SUBMIT, { method: 'POST', key, body: fixture('general_new-3y') });
    expect(submitted.status).toBe(202);
    reportId = submitted.body.report_id;
    taskId = submitted.body.task_id;
    await waitForReport(service, key, reportId);
  });
  afterAll(async () => {
    await service?.close();
  });

  async function countReports(k: string): Promise<number> {
    const list = await service.request('/api/v1/developer/reports?limit=100', { key: k });
    expect(list.status).toBe(200);
    return list.body.data.length;
  }

  describe('Idempotency-Key', () => {
    it('replays the first response for the same key and body, and makes one report', async () => {
      const k = await service.newKey('test');
      const body = fixture('small_enterprise-2y-no-cash-flow');
      const headers = { 'Idempotency-Key': 'order-42' };
      const first = await service.request(SUBMIT, { method: 'POST', key: k, body, headers });
      expect(first.status).toBe(202);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      // Same body with its keys in another order: the same request.
      const reordered = Object.fromEntries(Object.entries(body).reverse());
      const again = await service.request(SUBMIT, { method: 'POST', key: k, body: reordered, headers });
      expect(again.status).toBe(202);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.report_id).toBe(first.body.report_id);
      expect(again.body.task_id).toBe(first.body.task_id);
      expect(again.headers.get('location')).toBe(first.headers.get('location'));
      expect(await countReports(k)).toBe(1);
    });

    it('answers 422 for the same key with a different body, and 400 for a malformed key', async () => {
      const k = await service.newKey('test');
      const headers = { 'Idempotency-Key': 'k-1' };
      const body = fixture('general_new-3y');
      expect((await service.request(SUBMIT, { method: 'POST', key: k, body, headers })).status).toBe(202);
      const other = await service.request(SUBMIT, {
        method: 'POST',
        key: k,
        body: { ...body, enterprise_name: '另一家公司' },
        headers,
      });
      expect(other.status).toBe(422);
      expect(other.body.code).toBe('idempotency_key_reused');
      const bad = await service.request(SUBMIT, {
        method: 'POST',
        key: k,
        body,
        headers: { 'Idempotency-Key': 'a b' },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('invalid_header');
      expect(await countReports(k)).toBe(1);
    });

    it('scopes keys to the account and the mode', async () => {
      const email = `scope-${Date.now()}@example.com`;
      const testKey = await service.newKey('test', email);
      const liveKey = await service.newKey('live', email);
      const otherAccount = await service.newKey('test');
      const headers = { 'Idempotency-Key': 'shared-key' };
      const body = fixture('general_new-3y');
      const ids = new Set<string>();
      for (const k of [testKey, liveKey, otherAccount]) {
        const r = await service.request(SUBMIT, { method: 'POST', key: k, body, headers });
        expect(r.status).toBe(202);
        expect(r.headers.get('idempotent-replayed')).toBeNull();
        ids.add(r.body.report_id);
      }
      expect(ids.size).toBe(3);
    });

    it('answers 409 with Retry-After while the first request is being recorded', async () => {
      const k = await service.newKey('test');
      const body = fixture('general_new-3y');
      const [a, b] = await Promise.all([
        service.request(SUBMIT, { method: 'POST', key: k, body, headers: { 'Idempotency-Key': 'race' } }),
        service.request(SUBMIT, { method: 'POST', key: k, body, headers: { 'Idempotency-Key': 'race' } }),
      ]);
      const statuses = [a.status, b.status].sort();
      // Either the second arrived while the first was recording (409) or after it (a replay, 202).
      expect([
        [202, 202],
        [202, 409],
      ]).toContainEqual(statuses);
      const conflict = [a, b].find((r) => r.status === 409);
      if (conflict) {
        expect(conflict.body.code).toBe('idempotency_key_in_use');
        expect(conflict.headers.get('retry-after')).toBe('1');
      }
      expect(await countReports(k)).toBe(1);
      // A claim held by a request still recording answers 409 (made deterministic by holding one by hand).
      const [row] = await service.services.db.orm.em
        .fork()
        .getConnection()
        .execute<Array<{ account_id: string }>>(`select account_id from idempotency_keys where key = 'race'`);
      await holdIdempotencyKey(service.services, row!.account_id, 'held', body);
      const other = { ...body, enterprise_name: '别的公司' };
      const reused = await service.request(SUBMIT, {
        method: 'POST',
        key: k,
        body: other,
        headers: { 'Idempotency-Key': 'held' },
      });
      expect(reused.status).toBe(422);
      const inUse = await service.request(SUBMIT, {
        method: 'POST',
        key: k,
        body,
        headers: { 'Idempotency-Key': 'held' },
      });
      expect(inUse.status).toBe(409);
      expect(inUse.headers.get('retry-after')).toBe('1');
      expect(inUse.body.code).toBe('idempotency_key_in_use');
    });

    it('releases the key when the submission is rejected, and the expiry job deletes old keys', async () => {
      const k = await service.newKey('test');
      const headers = { 'Idempotency-Key': 'retry-after-fix' };
      const invalid = await service.request(SUBMIT, {
        method: 'POST',
        key: k,
        body: { year_start: 'x' },
        headers,
      });
      expect(invalid.status).toBe(422);
      expect(invalid.body.code).toBe('validation_failed');
      const fixed = await service.request(SUBMIT, {
        method: 'POST',
        key: k,
        body: fixture('general_new-3y'),
        headers,
      });
      expect(fixed.status).toBe(202);
      expect(fixed.headers.get('idempotent-replayed')).toBeNull();

      const later = new Date(Date.now() + 25 * 60 * 60 * 1000);
      expect(await runHousekeeping(service.services, later)).toBeGreaterThan(0);
      // The key is gone: the same key now makes a new report.
      const afterExpiry = await service.request(SUBMIT, {
        method: 'POST',
        key: k,
        body: fixture('general_new-3y'),
        headers,
      });
      expect(afterExpiry.status).toBe(202);
      expect(afterExpiry.body.report_id).not.toBe(fixed.body.report_id);
    });

    it('is idempotent over GraphQL with idempotencyKey', async () => {
      const k = await service.newKey('test');
      const query = `mutation($input: SubmitFinancialReportInput!, $key: String) {
        submitFinancialReport(input: $input, idempotencyKey: $key) { reportId replayed }
      }`;
      const variables = { input: fixture('general_new-3y'), key: 'gql-1' };
      const send = () => service.request('/graphql', { method: 'POST', key: k, body: { query, variables } });
      const first = await send();
      const second = await send();
      expect(first.body.errors).toBeUndefined();
      expect(first.body.data.submitFinancialReport.replayed).toBe(false);
      expect(second.body.data.submitFinancialReport).toEqual({
        reportId: first.body.data.submitFinancialReport.reportId,
        replayed: true,
      });
      const reused = await service.request('/graphql', {
        method: 'POST',
        key: k,
        body: { query, variables: { ...variables, input: { ...variables.input, enterprise_name: '别家' } } },
      });
      expect(reused.body.errors[0].extensions.code).toBe('IDEMPOTENCY_KEY_REUSED');
    });
  });

  it('gives the 202 Location, Operation-Location and Retry-After, and the task done and its report link', async () => {
    const submitted = await service.request(SUBMIT, { method: 'POST', key, body: fixture('general_new-3y') });
    expect(submitted.headers.get('location')).toBe(`/api/v1/developer/reports/${submitted.body.report_id}`);
    expect(submitted.headers.get('operation-location')).toBe(
      `/api/v1/developer/tasks/${submitted.body.task_id}`,
    );
    expect(submitted.headers.get('retry-after')).toBe('2');
    const pending = await service.request(`/api/v1/developer/tasks/${submitted.body.task_id}`, { key });
    if (pending.body.done === false) expect(pending.headers.get('retry-after')).toBe('2');
    await waitForReport(service, key, submitted.body.report_id);
    const task = await service.request(`/api/v1/developer/tasks/${submitted.body.task_id}`, { key });
    expect(task.body).toMatchObject({
      done: true,
      status: 'success',
      report_url: `/api/v1/developer/reports/${submitted.body.report_id}`,
    });
    expect(task.headers.get('retry-after')).toBeNull();
    const report = await service.request(`/api/v1/developer/reports/${submitted.body.report_id}`, { key });
    expect(report.headers.get('retry-after')).toBeNull();
  });

  it('puts Retry-After on a pending report read', async () => {
    const k = await service.newKey('test');
    const submitted = await service.request(SUBMIT, {
      method: 'POST',
      key: k,
      body: fixture('general_new-3y'),
    });
    // Hold the report pending: its job is taken away before it runs.
    await service.services.db.orm.em
      .fork()
      .getConnection()
      .execute(`update reports set status = 'pending' where id = '${submitted.body.report_id}'`);
    await waitForReport(service, k, submitted.body.report_id).catch(() => undefined);
    await service.services.db.orm.em
      .fork()
      .getConnection()
      .execute(`update reports set status = 'pending' where id = '${submitted.body.report_id}'`);
    const read = await service.request(`/api/v1/developer/reports/${submitted.body.report_id}`, { key: k });
    expect(read.body.status).toBe('pending');
    expect(read.headers.get('retry-after')).toBe('2');
  });

  describe('GET /reports', () => {
    it('lists newest first, pages with starting_after, filters by status, name and time', async () => {
      const k = await service.newKey('test');
      const ids: string[] = [];
      for (const name of ['甲公司', '乙公司', '丙公司']) {
        const r = await service.request(SUBMIT, {
          method: 'POST',
          key: k,
          body: { ...fixture('general_new-3y'), enterprise_name: name },
        });
        ids.push(r.body.report_id);
        await waitForReport(service, k, r.body.report_id);
      }
      const first = await service.request('/api/v1/developer/reports?limit=2', { key: k });
      expect(first.status).toBe(200);
      expect(first.body.data.map((r: { report_id: string }) => r.report_id)).toEqual([ids[2], ids[1]]);
      expect(first.body.has_more).toBe(true);
      const next = await service.request(
        `/api/v1/developer/reports?limit=2&starting_after=${first.body.next_starting_after}`,
        { key: k },
      );
      expect(next.body.data.map((r: { report_id: string }) => r.report_id)).toEqual([ids[0]]);
      expect(next.body.has_more).toBe(false);
      const byName = await service.request(
        `/api/v1/developer/reports?enterprise_name=${encodeURIComponent('乙公司')}`,
        {
          key: k,
        },
      );
      expect(byName.body.data.map((r: { report_id: string }) => r.report_id)).toEqual([ids[1]]);
      const byStatus = await service.request('/api/v1/developer/reports?status=failed', { key: k });
      expect(byStatus.body.data).toEqual([]);
      const future = await service.request(
        `/api/v1/developer/reports?created_gte=${new Date(Date.now() + 60_000).toISOString()}`,
        { key: k },
      );
      expect(future.body.data).toEqual([]);
      const past = await service.request(
        `/api/v1/developer/reports?created_lt=${new Date(Date.now() + 60_000).toISOString()}`,
        { key: k },
      );
      expect(past.body.data).toHaveLength(3);
      // Another key's list does not show them.
      expect(await countReports(await service.newKey('test'))).toBe(0);
    });

    it('rejects a bad limit, status, time or cursor with a 422 naming the parameter', async () => {
      for (const [query, path] of [
        ['limit=101', 'limit'],
        ['limit=0', 'limit'],
        ['status=done', 'status'],
        ['created_gte=yesterday', 'created_gte'],
        ['starting_after=00000000-0000-4000-8000-000000000000', 'starting_after'],
      ] as const) {
        const r = await service.request(`/api/v1/developer/reports?${query}`, { key });
        expect(r.status, query).toBe(422);
        expect(r.body.errors[0].path).toBe(path);
      }
    });
  });

  describe('compression', () => {
    it('compresses the analysis with br and gzip and sends identity when asked', async () => {
      const url = `${service.url}/api/v1/developer/reports/${reportId}/analysis`;
      const identity = await rawGet(url, { 'X-API-Key': key, 'Accept-Encoding': 'identity' });
      const gzip = await rawGet(url, { 'X-API-Key': key, 'Accept-Encoding': 'gzip' });
      const br = await rawGet(url, { 'X-API-Key': key, 'Accept-Encoding': 'br, gzip' });
      expect(identity.headers['content-encoding']).toBeUndefined();
      expect(gzip.headers['content-encoding']).toBe('gzip');
      expect(br.headers['content-encoding']).toBe('br');
      expect(gunzipSync(gzip.body).equals(identity.body)).toBe(true);
      expect(brotliDecompressSync(br.body).equals(identity.body)).toBe(true);
      expect(gzip.body.length).toBeLessThan(identity.body.length / 4);
      expect(br.body.length).toBeLessThan(gzip.body.length);
      console.info(
        `[${backend}] GET …/analysis bytes: identity ${identity.body.length}, gzip ${gzip.body.length}, br ${br.body.length}`,
      );
    });

    it('compresses /graphql, openapi.json and the web app page, but not small bodies', async () => {
      // A compressed GraphQL body is the response with the most 'close' listeners (the GraphQL adapter's, Node's
      // stream pipeline's, and ours behind one: server/lib/responseClosed.ts): none may cross EventEmitter's
      // warning threshold.
      const warnings: Error[] = [];
      const onWarning = (warning: Error) => void warnings.push(warning);
      process.on('warning', onWarning);
      const gql = await new Promise<{ encoding: string | undefined }>((resolve, reject) => {
        const body = JSON.stringify({
          query: `{ report(id: "${reportId}") { analysis { slug spResult } } }`,
        });
        const req = httpRequest(
          `${service.url}/graphql`,
          {
            method: 'POST',
            headers: { 'X-API-Key': key, 'Content-Type': 'application/json', 'Accept-Encoding': 'gzip' },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ encoding: res.headers['content-encoding'] as string | undefined }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      expect(gql.encoding).toBe('gzip');
      await new Promise((resolve) => setImmediate(resolve));
      process.off('warning', onWarning);
      expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([]);
      const openapi = await rawGet(`${service.url}/api/v1/openapi.json`, { 'Accept-Encoding': 'br' });
      expect(openapi.headers['content-encoding']).toBe('br');
      const html = await rawGet(`${service.url}/console`, { 'Accept-Encoding': 'gzip' });
      expect(html.headers['content-type']).toMatch(/text\/html/);
      // The page is compressed once it reaches the 1 kB threshold (the current build's is just under it).
      const htmlText = html.headers['content-encoding'] === 'gzip' ? gunzipSync(html.body) : html.body;
      expect(html.headers['content-encoding']).toBe(htmlText.length >= 1024 ? 'gzip' : undefined);
      expect(htmlText.toString()).toMatch(/<!doctype html>/i);
      const small = await rawGet(`${service.url}/healthz`, { 'Accept-Encoding': 'gzip' });
      expect(small.headers['content-encoding']).toBeUndefined();
    });
  });

  describe('conditional reads', () => {
    it.each([
      ['report', () => `/api/v1/developer/reports/${reportId}`],
      ['task', () => `/api/v1/developer/tasks/${taskId}`],
      ['analysis', () => `/api/v1/developer/reports/${reportId}/analysis`],
      ['analysis item', () => `/api/v1/developer/reports/${reportId}/analysis/revenue`],
      ['catalogue', () => '/api/v1/developer/catalogue'],
    ])('%s: ETag, and 304 for If-None-Match', async (_name, path) => {
      const first = await service.request(path(), { key });
      expect(first.status).toBe(200);
      const etag = first.headers.get('etag');
      expect(etag).toMatch(/^W\/".+"$/);
      const again = await service.request(path(), { key, headers: { 'If-None-Match': etag! } });
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
      const stale = await service.request(path(), { key, headers: { 'If-None-Match': 'W/"other"' } });
      expect(stale.status).toBe(200);
    });
  });

  describe('problems', () => {
    it('401 carries WWW-Authenticate: ApiKey, and every problem body carries request_id', async () => {
      const anonymous = await service.request(`/api/v1/developer/reports/${reportId}`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^ApiKey\b/);
      expect(anonymous.body.request_id).toBe(anonymous.headers.get('x-request-id'));
      const missing = await service.request('/api/v1/developer/reports/nope', {
        key,
        headers: { 'X-Request-Id': 'trace-123' },
      });
      expect(missing.body).toMatchObject({ code: 'not_found', request_id: 'trace-123' });
    });

    it('each problem type resolves to a page explaining it', async () => {
      const anonymous = await service.request(`/api/v1/developer/reports/${reportId}`);
      const page = await service.request(anonymous.body.type, { headers: { Accept: 'text/html' } });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(page.text).toContain('unauthenticated');
      const json = await service.request('/problems/idempotency_key_reused', {
        headers: { Accept: 'application/json' },
      });
      expect(json.body).toMatchObject({ code: 'idempotency_key_reused', status: 422 });
      const all = await service.request('/problems', { headers: { Accept: 'application/json' } });
      expect(all.body.map((p: { code: string }) => p.code).sort()).toEqual(Object.keys(PROBLEM_CODES).sort());
      expect((await service.request('/problems/no_such_code')).status).toBe(404);
    });
  });
});

describe('/graphql refusals per GraphQL over HTTP', () => {
  let service: TestService;
  let key: string;
  beforeAll(async () => {
    service = await startTestService('pglite');
    key = await service.newKey('test');
  });
  afterAll(async () => {
    await service?.close();
  });

  it('answers 406, 415 and 400 with a GraphQL error body saying why', async () => {
    const post = (headers: Record<string, string>, body: string) =>
      service.request('/graphql', { method: 'POST', key, headers, body });
    const notAcceptable = await post(
      { 'Content-Type': 'application/json', Accept: 'text/html' },
      '{"query":"{__typename}"}',
    );
    expect(notAcceptable.status).toBe(406);
    expect(notAcceptable.body.errors[0].extensions.code).toBe('NOT_ACCEPTABLE');
    const unsupported = await post({ 'Content-Type': 'text/plain' }, '{"query":"{__typename}"}');
    expect(unsupported.status).toBe(415);
    expect(unsupported.body.errors[0]).toMatchObject({ extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
    const malformed = await post({ 'Content-Type': 'application/json' }, '{"query":');
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0].message).toMatch(/invalid JSON/);
    expect(malformed.body.errors[0].extensions.originalError).toBeUndefined();
  });
});
