/**
 * How the database stores and runs the hot path (docs/performance.md): the analysis documents are `json`, the
 * large documents lz4-compressed where the server has lz4, a write to a pending report found by its key whatever the
 * statistics say, and the registered statements run as named prepared statements on PostgreSQL — on both backends
 * from the same migrations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, migrate, openDatabase } from '../../server/db/database.ts';
import type { ReportStatus } from '../../server/db/entities/report.entity.ts';
import { prepared } from '../../server/db/prepared.ts';
import { pendingReportWhere, runSql } from '../../server/db/sql.ts';
import {
  type Backend,
  createTestDatabase,
  explainRolledBack,
  type TestDatabase,
} from '../helpers/database.ts';
import { insertReportRows } from '../helpers/records.ts';
import { fixture, startTestService, waitForReport } from '../helpers/service.ts';

describe.each<Backend>(['postgres', 'pglite'])('storage on %s', (backend) => {
  let testDb: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    testDb = await createTestDatabase(backend);
    db = await openDatabase({ databaseUrl: testDb.databaseUrl, dataDir: testDb.dataDir });
    await migrate(db.orm);
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  it('keeps the analysis documents as json and the submission and statements as jsonb', async () => {
    const rows = await runSql<{ table_name: string; column_name: string; data_type: string }>(
      db.orm.em.fork(),
      `select table_name, column_name, data_type from information_schema.columns
        where (table_name, column_name) in
              (('analysis_results', 'sp_result'), ('analysis_results', 'risk_items'), ('tasks', 'payload'),
               ('statements', 'lines'))
        order by table_name, column_name`,
    );
    expect(rows.map((row) => `${row.table_name}.${row.column_name} ${row.data_type}`)).toEqual([
      'analysis_results.risk_items json',
      'analysis_results.sp_result json',
      'statements.lines jsonb',
      'tasks.payload jsonb',
    ]);
  });

  it('compresses the large documents with lz4 where the server supports it', async () => {
    const rows = await runSql<{ attname: string; attcompression: string }>(
      db.orm.em.fork(),
      `select attname, attcompression from pg_attribute
        where attrelid = 'analysis_results'::regclass and attname in ('sp_result', 'risk_items')`,
    );
    expect(rows).toHaveLength(2);
    // PostgreSQL here is built with lz4 ('l'); PGlite is not, and keeps the default ('' = pglz).
    for (const row of rows) expect(row.attcompression).toBe(backend === 'postgres' ? 'l' : '');
  });

  it('writes to a pending report by its key, even when the statistics saw no pending report (a burst after a quiet hour)', async () => {
    const em = db.orm.em.fork();
    const [account] = await runSql<{ id: string }>(
      em,
      `insert into accounts (id, email, created_at) values (gen_random_uuid(), 'burst@example.com', now()) returning id`,
    );
    const [enterprise] = await runSql<{ id: string }>(
      em,
      `insert into enterprises (id, account_id, mode, name, report_count, created_at, updated_at)
       values (gen_random_uuid(), $1, 'test', '突发企业', 0, now(), now()) returning id`,
      [account!.id],
    );
    const addReports = (count: number, status: ReportStatus) =>
      insertReportRows(em, { accountId: account!.id, enterpriseId: enterprise!.id, count, status });
    // The quiet hour: every report finished, and ANALYZE (autovacuum's) saw no pending one.
    await addReports(300, 'success');
    await runSql(em, 'analyze reports');
    // Then the burst, before the next ANALYZE.
    await addReports(500, 'pending');
    // What one write to the burst's latest report reads (EXPLAIN's buffers), in a transaction rolled back.
    const oneWrite = async (where: string) => {
      const [last] = await runSql<{ id: string }>(
        em,
        `select id from reports where status = 'pending' order by created_at desc limit 1`,
      );
      const write = await explainRolledBack(em, `update reports set updated_at = now() where ${where}`, [
        last!.id,
      ]);
      expect(write.plan).toMatch(/\(actual rows=1 loops=1\)/);
      return write;
    };
    const early = await oneWrite(pendingReportWhere('$1'));
    await addReports(4000, 'pending');
    const late = await oneWrite(pendingReportWhere('$1'));
    // Found by the key: it reads as much with 4,500 reports pending as with 500 (a walk of the pending reports in
    // reports_status_created_at_index read 53 buffers with 2,000 pending, and grows with them).
    expect(late.plan).toContain('reports_pkey');
    expect(late.plan).not.toContain('Rows Removed by Filter');
    expect(late.buffers).toBeLessThanOrEqual(early.buffers + 3);
  });
});

describe('prepared statements on postgres', () => {
  let testDb: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    testDb = await createTestDatabase('postgres');
    db = await openDatabase({ databaseUrl: testDb.databaseUrl, dataDir: testDb.dataDir });
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  it('runs registered statements as named prepared statements, and nothing else', async () => {
    const hot = prepared('select $1::int + 1 as n');
    const cold = 'select $1::int + 2 as n';
    const statements = await db.orm.em.fork().transactional(async (tx) => {
      // One transaction is one connection: the session's prepared statements are visible to it.
      expect(await runSql(tx, hot, [1])).toEqual([{ n: 2 }]);
      expect(await runSql(tx, hot, [2])).toEqual([{ n: 3 }]);
      expect(await runSql(tx, cold, [1])).toEqual([{ n: 3 }]);
      return runSql<{ name: string; statement: string }>(
        tx,
        'select name, statement from pg_prepared_statements',
      );
    });
    expect(statements.map((s) => s.statement)).toContain(hot);
    expect(statements.map((s) => s.statement)).not.toContain(cold);
    expect(statements.find((s) => s.statement === hot)?.name).toMatch(/^fra_\d+$/);
  });

  it("runs the workers' job fetches as prepared statements on the service's own pool", async () => {
    // Two connections in the service's pool: what they prepared, their sessions show (read below from both at once).
    const service = await startTestService('postgres', { dbPoolSize: 2 });
    try {
      const key = await service.newKey('test');
      const submitted = await service.request('/api/v1/developer/reports/financial', {
        method: 'POST',
        key,
        body: fixture('general_new-3y'),
      });
      expect(submitted.status, submitted.text).toBe(202);
      await waitForReport(service, key, submitted.body.report_id);
      // Two transactions open together hold both connections, each reading its own session's statements.
      let arrived = 0;
      let release = () => {};
      const bothOpen = new Promise<void>((resolve) => {
        release = resolve;
      });
      const read = () =>
        service.services.db.orm.em.fork().transactional(async (tx) => {
          const rows = await runSql<{ name: string; statement: string }>(
            tx,
            'select name, statement from pg_prepared_statements',
          );
          if (++arrived === 2) release();
          await bothOpen;
          return rows;
        });
      const statements = (await Promise.all([read(), read()])).flat();
      // pg-boss's fetch (its CTE counting each account's active jobs), named like every registered statement.
      const fetches = statements.filter((s) => s.statement.includes('active_group_count_map'));
      expect(fetches.length).toBeGreaterThan(0);
      for (const fetch of fetches) expect(fetch.name).toMatch(/^fra_\d+$/);
    } finally {
      await service.close();
    }
  });
});
