/**
 * X-API-Key authentication and tenancy: who may see which report.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKeyByValue } from '../../server/services/apiKeys.ts';
import { fixture, startTestService, type TestService, waitForReport } from '../helpers/service.ts';

describe('API keys and tenancy', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService('postgres');
  });
  afterAll(async () => {
    await service?.close();
  });

  it('creates keys of the documented shape', async () => {
    const test = await service.newKey('test');
    const live = await service.newKey('live');
    expect(test).toMatch(/^ek_test_[A-Za-z0-9_-]{43}$/);
    expect(live).toMatch(/^ek_live_[A-Za-z0-9_-]{43}$/);
  });

  it('stores only a hash of the key', async () => {
    const key = await service.newKey('test');
    const rows = await service.services.db.orm.em
      .fork()
      .getConnection()
      .execute<Array<{ key_hash: string; prefix: string }>>('select key_hash, prefix from api_keys');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.key_hash).not.toContain(key.slice(8));
    expect(rows.some((row) => key.startsWith(row.prefix))).toBe(true);
  });

  it.each([
    ['no key', undefined, /X-API-Key/],
    ['a malformed key', 'not-a-key', /valid API key/],
    ['an unknown key', `ek_test_${'A'.repeat(43)}`, /not recognised/],
  ])('answers 401 with a problem body for %s', async (_what, key, detail) => {
    for (const [method, path, body] of [
      ['GET', '/api/v1/developer/reports/00000000-0000-4000-8000-000000000000', undefined],
      ['POST', '/api/v1/developer/reports/financial', fixture('general_new-3y')],
    ] as const) {
      const response = await service.request(path, { method, key, body });
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({ status: 401, code: 'unauthenticated', title: 'Unauthenticated' });
      expect(response.body.detail).toMatch(detail);
    }
  });

  it('rejects a revoked key on the next request', async () => {
    const key = await service.newKey('test');
    const before = await service.request('/api/v1/developer/reports/00000000-0000-4000-8000-000000000000', {
      key,
    });
    expect(before.status).toBe(404);
    expect(await revokeApiKeyByValue(service.services.db.orm.em.fork(), key)).toBe(true);
    const after = await service.request('/api/v1/developer/reports/00000000-0000-4000-8000-000000000000', {
      key,
    });
    expect(after.status).toBe(401);
    expect(after.body.detail).toMatch(/revoked/);
  });

  it('shows a report only to keys of the same account and mode', async () => {
    const email = 'tenant-a@example.com';
    const ownerTest = await service.newKey('test', email);
    const ownerSecondTest = await service.newKey('test', email);
    const ownerLive = await service.newKey('live', email);
    const stranger = await service.newKey('test', 'tenant-b@example.com');

    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key: ownerTest,
      body: fixture('general_new-3y'),
    });
    expect(submitted.status).toBe(202);
    const { report_id: reportId, task_id: taskId } = submitted.body;
    await waitForReport(service, ownerTest, reportId);

    const paths = [
      `/api/v1/developer/reports/${reportId}`,
      `/api/v1/developer/tasks/${taskId}`,
      `/api/v1/developer/reports/${reportId}/analysis`,
      `/api/v1/developer/reports/${reportId}/analysis/revenue`,
    ];
    for (const path of paths) {
      expect((await service.request(path, { key: ownerSecondTest })).status, path).toBe(200);
      expect((await service.request(path, { key: ownerLive })).status, path).toBe(404);
      expect((await service.request(path, { key: stranger })).status, path).toBe(404);
    }

    // Live data is numbered on its own: the same enterprise submitted live starts again at version 1.
    const live = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key: ownerLive,
      body: fixture('general_new-3y'),
    });
    expect(live.body.version_no).toBe(1);
    expect(live.body.enterprise_id).not.toBe(submitted.body.enterprise_id);
  });
});
