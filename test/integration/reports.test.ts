/**
 * The spec's REST flow end to end, on PostgreSQL and on embedded PGlite: submit each fixture, poll to
 * success, read the report, the task and the analysis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../helpers/database.ts';
import { FIXTURES, fixture, startTestService, type TestService, waitForReport } from '../helpers/service.ts';

const ISSUE_SLUGS = [
  'revenue',
  'profitability',
  'short_term_liability',
  'long_term_liability',
  'operational_efficiency',
  'balance_sheet',
];
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each<Backend>(['postgres', 'pglite'])('REST flow on %s', (backend) => {
  let service: TestService;
  let key: string;

  beforeAll(async () => {
    service = await startTestService(backend);
    key = await service.newKey('test');
  });
  afterAll(async () => {
    await service?.close();
  });

  it('answers /healthz once the database is migrated', async () => {
    const response = await service.request('/healthz');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok', database: backend });
  });

  it.each(FIXTURES)('takes %s from submission to a readable analysis', async (name) => {
    const body = fixture(name);
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key,
      body,
    });
    expect(submitted.status).toBe(202);
    expect(submitted.headers.get('content-type')).toMatch(/^application\/json/);
    const receipt = submitted.body;
    expect(receipt).toMatchObject({ status: 'pending', share_url: null, version_no: 1 });
    expect(receipt.report_id).toMatch(UUID);
    expect(receipt.task_id).toMatch(UUID);
    expect(receipt.task_id).not.toBe(receipt.report_id);
    expect(receipt.enterprise_id).toMatch(UUID);
    expect(Array.isArray(receipt.validation_warnings)).toBe(true);
    expect(typeof receipt.message).toBe('string');
    const cashFlowWarnings = receipt.validation_warnings.filter(
      (w: { code: string }) => w.code === 'cash_flow_missing',
    );
    expect(cashFlowWarnings.length > 0).toBe(name === 'small_enterprise-2y-no-cash-flow');

    const done = await waitForReport(service, key, receipt.report_id);
    expect(done.body.status).toBe('success');
    expect(done.body.report_id).toBe(receipt.report_id);
    expect(done.body.name).toBe(body.enterprise_name);
    expect(done.body.error_message).toBeNull();
    const share = done.body.share;
    expect(share.is_public).toBe(true);
    expect(share.share_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(share.share_url).toBe(`/shared/reports/${share.share_token}`);
    expect(share.share_expires_at).toBeNull();

    const task = await service.request(`/api/v1/developer/tasks/${receipt.task_id}`, { key });
    expect(task.status).toBe(200);
    expect(task.body).toMatchObject({
      task_id: receipt.task_id,
      report_id: receipt.report_id,
      status: 'success',
    });
    expect(task.body.error_message).toBeNull();

    const list = await service.request(`/api/v1/developer/reports/${receipt.report_id}/analysis`, { key });
    expect(list.status).toBe(200);
    expect(list.body.report_id).toBe(receipt.report_id);
    expect(list.body.total).toBe(list.body.items.length);
    const slugs = list.body.items.map((item: { slug: string }) => item.slug);
    for (const slug of ISSUE_SLUGS) expect(slugs).toContain(slug);
    for (const item of list.body.items) {
      expect(typeof item.label).toBe('string');
      expect(item.label).toMatch(/[\u4e00-\u9fff]/);
      expect(item.cached_at).toMatch(ISO_UTC);
      expect(Array.isArray(item.risk_items)).toBe(true);
      for (const risk of item.risk_items) {
        expect(['info', 'warning', 'danger']).toContain(risk.level);
        expect(typeof risk.message).toBe('string');
      }
      expect(typeof item.sp_result).toBe('object');
    }
    const years = body.years_data.length;
    const revenue = list.body.items.find((item: { slug: string }) => item.slug === 'revenue');
    expect(revenue.sp_result.released_year).toBe(body.year_end);
    expect(revenue.sp_result.series).toHaveLength(years);

    const one = await service.request(`/api/v1/developer/reports/${receipt.report_id}/analysis/revenue`, {
      key,
    });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(revenue);
  });

  it('serves the analysis catalogue, listing exactly the items a report has', async () => {
    const catalogue = await service.request('/api/v1/developer/catalogue', { key });
    expect(catalogue.status).toBe(200);
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key,
      body: fixture('general_old-5y-ai'),
    });
    await waitForReport(service, key, submitted.body.report_id);
    const list = await service.request(`/api/v1/developer/reports/${submitted.body.report_id}/analysis`, {
      key,
    });
    expect(catalogue.body.items.map((item: { slug: string }) => item.slug)).toEqual(
      list.body.items.map((item: { slug: string }) => item.slug),
    );
    for (const item of list.body.items) {
      const entry = catalogue.body.items.find((c: { slug: string }) => c.slug === item.slug);
      expect(entry.label).toBe(item.label);
    }
    expect((await service.request('/api/v1/developer/catalogue')).status).toBe(401);
  });

  it('numbers versions per enterprise, and identical data makes a new report', async () => {
    const ownKey = await service.newKey('test');
    const body = { ...fixture('general_new-3y'), enterprise_name: '版本测试有限公司' };
    const first = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key: ownKey,
      body,
    });
    const second = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key: ownKey,
      body,
    });
    const other = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key: ownKey,
      body: { ...body, enterprise_name: '另一家公司' },
    });
    expect([first.status, second.status, other.status]).toEqual([202, 202, 202]);
    expect(first.body.version_no).toBe(1);
    expect(second.body.version_no).toBe(2);
    expect(second.body.report_id).not.toBe(first.body.report_id);
    expect(second.body.enterprise_id).toBe(first.body.enterprise_id);
    expect(other.body.version_no).toBe(1);
    expect(other.body.enterprise_id).not.toBe(first.body.enterprise_id);
    for (const receipt of [first.body, second.body, other.body]) {
      expect((await waitForReport(service, ownKey, receipt.report_id)).body.status).toBe('success');
    }
  });

  it('gives concurrent submissions for one enterprise distinct versions', async () => {
    const ownKey = await service.newKey('test');
    const body = { ...fixture('small_enterprise-2y-no-cash-flow'), enterprise_name: '并发测试公司' };
    const responses = await Promise.all(
      Array.from({ length: 8 }, () =>
        service.request('/api/v1/developer/reports/financial', { method: 'POST', key: ownKey, body }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(8).fill(202));
    expect(responses.map((r) => r.body.version_no).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('names an anonymous submission 匿名企业', async () => {
    const { enterprise_name: _name, ...body } = fixture('small_enterprise-2y-no-cash-flow');
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key,
      body,
    });
    expect(submitted.status).toBe(202);
    const done = await waitForReport(service, key, submitted.body.report_id);
    expect(done.body.name).toBe('匿名企业');
  });

  it('answers 404 for unknown and malformed ids and unknown slugs, never 500', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const path of [
      `/api/v1/developer/reports/${unknown}`,
      `/api/v1/developer/reports/not-a-uuid`,
      `/api/v1/developer/tasks/${unknown}`,
      `/api/v1/developer/tasks/12345`,
      `/api/v1/developer/reports/${unknown}/analysis`,
      `/api/v1/developer/reports/%E2%98%83/analysis/revenue`,
    ]) {
      const response = await service.request(path, { key });
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({ status: 404, title: 'Not found' });
    }
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key,
      body: fixture('general_new-3y'),
    });
    await waitForReport(service, key, submitted.body.report_id);
    const slug = await service.request(
      `/api/v1/developer/reports/${submitted.body.report_id}/analysis/no_such_slug`,
      { key },
    );
    expect(slug.status).toBe(404);
    expect(slug.body.code).toBe('analysis_item_not_found');
    expect(slug.body.detail).toContain('no_such_slug');
  });
});
