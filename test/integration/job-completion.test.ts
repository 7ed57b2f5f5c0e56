/**
 * The analysis job is completed in the transaction that marks its report a success (JobQueue.analysisCompletionCte, issue
 * 26): no moment exists at which a report reads success while its job is still active — a crash between the two
 * would otherwise rerun a finished job — and the completion costs no statement of its own. Results an attempt running
 * beside it wrote first are overwritten, not a reason to fail the report.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORT_SLUGS } from '../../worker/engine/registry.ts';
import { connect } from '../helpers/database.ts';
import { until } from '../helpers/process.ts';
import { fixture, startTestService, type TestService, waitForReport } from '../helpers/service.ts';

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

  it('overwrites the results an attempt beside it left (a job taken again after its heartbeat lapsed)', async () => {
    const key = await service.newKey('test');
    // The job is held at its assemble statement by a lock on analysis_results, taken from another connection.
    const blocker = await connect(service.db.databaseUrl!);
    const observer = await connect(service.db.databaseUrl!);
    try {
      await blocker.query('begin');
      await blocker.query('lock table analysis_results in access exclusive mode');
      const submitted = await service.request('/api/v1/developer/reports/financial', {
        method: 'POST',
        key,
        body: fixture('general_new-3y'),
      });
      expect(submitted.status).toBe(202);
      const reportId: string = submitted.body.report_id;
      await until('the assemble statement to wait for the lock', async () => {
        const { rows } = await observer.query(
          `select 1 from pg_locks where relation = 'analysis_results'::regclass and not granted`,
        );
        return rows.length > 0 ? true : undefined;
      });
      // What an attempt running beside this one (its job taken again) would have written first.
      const slug = REPORT_SLUGS[0]!;
      await blocker.query(
        `insert into analysis_results (report_id, slug, position, sp_result, risk_items, cached_at)
         values ($1, $2, 0, '{"stale": true}', '[]', now())`,
        [reportId, slug],
      );
      await blocker.query('commit');

      const report = await waitForReport(service, key, reportId);
      expect(report.body.status).toBe('success');
      const { rows } = await observer.query(
        `select slug, sp_result::text as sp_result from analysis_results where report_id = $1`,
        [reportId],
      );
      expect(rows.map((row) => row.slug).sort()).toEqual([...REPORT_SLUGS].sort());
      const overwritten = rows.find((row) => row.slug === slug)!;
      expect(JSON.parse(overwritten.sp_result)).not.toHaveProperty('stale');
      const item = await service.request(`/api/v1/developer/reports/${reportId}/analysis/${slug}`, { key });
      expect(item.status).toBe(200);
      expect(JSON.stringify(item.body)).not.toContain('stale');
    } finally {
      await blocker.query('rollback').catch(() => undefined);
      await blocker.end();
      await observer.end();
    }
  });
});
