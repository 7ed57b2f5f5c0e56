/**
 * Rejected submissions over HTTP: the status, the problem document naming the field, and nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, startTestService, type TestService } from '../helpers/service.ts';

const PATH = '/api/v1/developer/reports/financial';

describe('rejected submissions', () => {
  let service: TestService;
  let key: string;

  async function counts() {
    const rows = await service.services.db.orm.em
      .fork()
      .getConnection()
      .execute<Array<{ reports: string; tasks: string; jobs: string }>>(
        `select (select count(*) from reports) as reports, (select count(*) from tasks) as tasks,
                (select count(*) from pgboss.job where name = 'report-analysis') as jobs`,
      );
    return rows[0];
  }

  beforeAll(async () => {
    service = await startTestService('pglite', { bodyLimitBytes: 1024 * 1024 });
    key = await service.newKey('test');
  });
  afterAll(async () => {
    await service?.close();
  });

  it('answers 422 naming each invalid field, and writes nothing', async () => {
    const before = await counts();
    const body = fixture('general_new-3y');
    body.accounting_standard = 'ifrs';
    body.years_data[1]!.sheets[0]!.items[3]!.current_year_amount = '1,234.00';
    const response = await service.request(PATH, { method: 'POST', key, body });
    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({
      type: '/problems/validation_failed',
      status: 422,
      code: 'validation_failed',
    });
    expect(typeof response.body.title).toBe('string');
    expect(typeof response.body.detail).toBe('string');
    const paths = response.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toContain('accounting_standard');
    expect(paths).toContain('years_data[1].sheets[0].items[3].current_year_amount');
    for (const error of response.body.errors) expect(typeof error.message).toBe('string');
    expect(await counts()).toEqual(before);
  });

  it('answers 400 for malformed JSON', async () => {
    const response = await service.request(PATH, { method: 'POST', key, body: '{"accounting_standard": ' });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ status: 400, code: 'malformed_json' });
  });

  it('answers 415 for another content type', async () => {
    const response = await service.request(PATH, {
      method: 'POST',
      key,
      body: 'accounting_standard=general_new',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(415);
    expect(response.body).toMatchObject({ status: 415, code: 'unsupported_media_type' });
  });

  it('answers 413 for a body over the limit', async () => {
    const body = { ...fixture('general_new-3y'), padding: 'x'.repeat(1024 * 1024 + 10) };
    const response = await service.request(PATH, { method: 'POST', key, body });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ status: 413, code: 'payload_too_large' });
  });

  it('answers 422 for a body that is not an object', async () => {
    for (const body of ['[]', '"report"', '42', 'null']) {
      const response = await service.request(PATH, { method: 'POST', key, body });
      expect(response.status, body).toBe(422);
      expect(response.body.errors.length).toBeGreaterThan(0);
    }
  });

  it('reports unrecognised item names as warnings, not errors', async () => {
    const body = fixture('general_new-3y');
    body.years_data[0]!.sheets[0]!.items.push({
      item_name: 'mystery_line',
      current_year_amount: '1.00',
      last_year_amount: '2.00',
    });
    const response = await service.request(PATH, { method: 'POST', key, body });
    expect(response.status).toBe(202);
    const warning = response.body.validation_warnings.find((w: { message: string }) =>
      w.message.includes('mystery_line'),
    );
    expect(warning).toBeDefined();
    expect(warning.path).toMatch(/^years_data\[\d+\]\.sheets\[\d+\]\.items\[\d+\]\.item_name$/);
  });

  it('answers 404 with a problem body for an unknown route', async () => {
    const response = await service.request('/api/v1/developer/nothing-here', { key });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('route_not_found');
  });
});
