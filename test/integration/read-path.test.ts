/**
 * Polling a finished report costs the reads of the report itself: neither pg-boss's job tables nor the report's
 * task are touched (docs/performance.md, "Polling"). Proved by holding an ACCESS EXCLUSIVE lock on them while
 * the reads are answered — a read that touched them would wait for the lock.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../helpers/database.ts';
import { fixture, startTestService, type TestService, waitForReport } from '../helpers/service.ts';

describe('reads of a finished report (postgres)', () => {
  let service: TestService;
  let key: string;
  let reportId: string;
  let locker: pg.Client;

  beforeAll(async () => {
    service = await startTestService('postgres');
    key = await service.newKey('test');
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key,
      body: fixture('general_new-3y'),
    });
    expect(submitted.status).toBe(202);
    reportId = submitted.body.report_id;
    await waitForReport(service, key, reportId);
    locker = await connect(service.db.databaseUrl!);
  });
  afterAll(async () => {
    await locker?.end();
    await service?.close();
  });

  it('answers 200 and 304 while the job tables and the task are locked', async () => {
    const first = await service.request(`/api/v1/developer/reports/${reportId}`, { key });
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('success');
    const etag = first.headers.get('etag')!;
    await locker.query('begin');
    try {
      await locker.query('lock table pgboss.job, tasks in access exclusive mode');
      const within = <T>(what: Promise<T>) =>
        Promise.race([
          what,
          new Promise<never>((_, reject) =>
            setTimeout(() => reject(new Error('the read waited for the job tables')), 5000),
          ),
        ]);
      const again = await within(service.request(`/api/v1/developer/reports/${reportId}`, { key }));
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      const notModified = await within(
        service.request(`/api/v1/developer/reports/${reportId}`, { key, headers: { 'If-None-Match': etag } }),
      );
      expect(notModified.status).toBe(304);
      const analysis = await within(
        service.request(`/api/v1/developer/reports/${reportId}/analysis`, { key }),
      );
      expect(analysis.status).toBe(200);
      expect(analysis.body.items.length).toBeGreaterThan(40);
    } finally {
      await locker.query('rollback');
    }
  });
});
