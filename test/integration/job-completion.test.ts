/**
 * The analysis job is completed in the transaction that marks its report a success (JobQueue.analysisCompletionCte, issue
 * 26): no moment exists at which a report reads success while its job is still active — a crash between the two
 * would otherwise rerun a finished job — and the completion costs no statement of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, startTestService, type TestService } from '../helpers/service.ts';

describe('analysis job completion', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService('postgres');
  });
  afterAll(async () => {
    await service?.close();
  });

  it('commits the job completed with the report success, never success beside an active job', async () => {
    const key = await service.newKey('test');
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key,
      body: fixture('general_new-3y'),
    });
    expect(submitted.status).toBe(202);
    const em = service.services.db.orm.em.fork();
    const seen: string[] = [];
    for (let i = 0; i < 3000; i++) {
      // One statement, one snapshot: the report's status and its job's state as of the same moment.
      const [row] = await em.getConnection().execute<Array<{ status: string; state: string | null }>>(
        `select r.status, (select j.state from pgboss.job j
                            where j.name = 'report-analysis' and j.data->>'reportId' = r.id::text) as state
           from reports r where r.id = ?`,
        [submitted.body.report_id],
      );
      seen.push(`${row!.status}/${row!.state}`);
      if (row!.status !== 'pending') break;
    }
    expect(seen.at(-1)).toBe('success/completed');
    expect(seen.filter((s) => s.startsWith('success') && !s.endsWith('completed'))).toEqual([]);
  });
});
