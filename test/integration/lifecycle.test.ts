/**
 * Report states other than the happy path: reading analysis before success (409), a failed report, and
 * the backstop that fails reports left pending past any possible attempt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Account } from '../../server/db/entities/account.entity.ts';
import { failStaleReports, maxPendingSeconds } from '../../server/jobs/sweeper.ts';
import { insertReport } from '../helpers/records.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

describe('report lifecycle', () => {
  let service: TestService;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    service = await startTestService('pglite');
    const email = 'lifecycle@example.com';
    key = await service.newKey('test', email);
    accountId = (await service.services.db.orm.em.fork().findOneOrFail(Account, { email })).id;
  });
  afterAll(async () => {
    await service?.close();
  });

  it('answers 409 for the analysis of a pending report, with a problem body', async () => {
    const { reportId, taskId } = await insertReport(service.services, accountId, { status: 'pending' });
    for (const path of [`/analysis`, `/analysis/revenue`]) {
      const response = await service.request(`/api/v1/developer/reports/${reportId}${path}`, { key });
      expect(response.status).toBe(409);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({
        status: 409,
        code: 'report_not_ready',
        title: 'Report not ready',
      });
      expect(response.body.detail).toContain('pending');
    }
    const report = await service.request(`/api/v1/developer/reports/${reportId}`, { key });
    expect(report.body).toMatchObject({ status: 'pending', share: null, error_message: null });
    const task = await service.request(`/api/v1/developer/tasks/${taskId}`, { key });
    expect(task.body).toMatchObject({ status: 'processing', error_message: null });
  });

  it('shows a failed report with its error_message and no share, and refuses its analysis', async () => {
    const { reportId, taskId } = await insertReport(service.services, accountId, {
      status: 'failed',
      errorMessage: 'The report could not be analysed: test.',
    });
    const report = await service.request(`/api/v1/developer/reports/${reportId}`, { key });
    expect(report.body).toMatchObject({
      status: 'failed',
      error_message: 'The report could not be analysed: test.',
      share: null,
    });
    const task = await service.request(`/api/v1/developer/tasks/${taskId}`, { key });
    expect(task.body).toMatchObject({
      status: 'failed',
      error_message: 'The report could not be analysed: test.',
    });
    const analysis = await service.request(`/api/v1/developer/reports/${reportId}/analysis`, { key });
    expect(analysis.status).toBe(409);
    expect(analysis.body.detail).toContain('failed');
  });

  it('fails reports left pending longer than any job could run, and only those', async () => {
    const config = service.services.config;
    const old = new Date(Date.now() - (maxPendingSeconds(config) + 60) * 1000);
    const stale = await insertReport(service.services, accountId, { status: 'pending', createdAt: old });
    const fresh = await insertReport(service.services, accountId, { status: 'pending' });
    expect(await failStaleReports(service.services)).toBeGreaterThanOrEqual(1);
    const staleReport = await service.request(`/api/v1/developer/reports/${stale.reportId}`, { key });
    expect(staleReport.body.status).toBe('failed');
    expect(staleReport.body.error_message).toMatch(/did not finish/);
    const staleTask = await service.request(`/api/v1/developer/tasks/${stale.taskId}`, { key });
    expect(staleTask.body.status).toBe('failed');
    const freshReport = await service.request(`/api/v1/developer/reports/${fresh.reportId}`, { key });
    expect(freshReport.body.status).toBe('pending');
  });
});
