/**
 * Writes report rows straight through the ORM, with no job behind them: for the states a live job passes
 * through too quickly to observe (pending), or only reaches after its retries run out (failed).
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Enterprise } from '../../server/db/entities/enterprise.entity.ts';
import { Report, type ReportStatus } from '../../server/db/entities/report.entity.ts';
import { Task } from '../../server/db/entities/task.entity.ts';
import { runSql } from '../../server/db/sql.ts';
import type { ServiceContext } from '../../server/services/context.ts';

export async function insertReport(
  services: ServiceContext,
  accountId: string,
  options: { status: ReportStatus; errorMessage?: string; createdAt?: Date; mode?: 'test' | 'live' },
): Promise<{ reportId: string; taskId: string }> {
  const em = services.db.orm.em.fork();
  const now = options.createdAt ?? new Date();
  const mode = options.mode ?? 'test';
  const enterprise = em.create(Enterprise, {
    id: randomUUID(),
    account: accountId,
    mode,
    name: `直写企业-${randomUUID()}`,
    reportCount: 1,
    createdAt: now,
    updatedAt: now,
  });
  const report = em.create(Report, {
    id: randomUUID(),
    account: accountId,
    mode,
    enterprise,
    versionNo: 1,
    name: enterprise.name,
    accountingStandard: 'general_new',
    yearStart: 2023,
    yearEnd: 2024,
    aiAutoAnalysis: false,
    enterpriseInfo: null,
    validationWarnings: [],
    status: options.status,
    errorMessage: options.errorMessage ?? null,
    createdAt: now,
    updatedAt: now,
  });
  const task = em.create(Task, {
    id: randomUUID(),
    report,
    status: options.status === 'pending' ? 'processing' : options.status,
    step: 'queued',
    payload: null,
    errorMessage: options.errorMessage ?? null,
    createdAt: now,
    updatedAt: now,
  });
  await em.flush();
  return { reportId: report.id, taskId: task.id };
}

/**
 * `count` report rows of `enterpriseId` in `status`, in one statement (for the table sizes the plan tests need), with
 * the enterprise's next version numbers and creation times a millisecond apart, the last created latest; their ids.
 */
export async function insertReportRows(
  em: EntityManager,
  rows: { accountId: string; enterpriseId: string; count: number; status: ReportStatus },
): Promise<string[]> {
  const inserted = await runSql<{ id: string }>(
    em,
    `insert into reports (id, account_id, mode, enterprise_id, version_no, name, accounting_standard, year_start,
                          year_end, ai_auto_analysis, validation_warnings, status, created_at, updated_at)
     select gen_random_uuid(), $1, 'test', $2, v.n + g, '直写企业', 'general_new', 2023, 2024, false, '[]', $4,
            now() - interval '1 day' + g * interval '1 ms', now()
       from generate_series(1, $3) as g,
            (select coalesce(max(version_no), 0) as n from reports where enterprise_id = $2) as v
     returning id`,
    [rows.accountId, rows.enterpriseId, rows.count, rows.status],
  );
  return inserted.map((row) => row.id);
}

/**
 * An Idempotency-Key claimed by a request that is still recording its report (state in_progress), for `body`'s
 * fingerprint: what a concurrent request finds. Written by hand because a live request holds it only for
 * the milliseconds of its transaction.
 */
export async function holdIdempotencyKey(
  services: ServiceContext,
  accountId: string,
  key: string,
  body: unknown,
): Promise<void> {
  const { requestFingerprint } = await import('../../server/services/idempotency.ts');
  const now = new Date();
  await services.db.orm.em
    .fork()
    .getConnection()
    .execute(
      `insert into idempotency_keys (account_id, mode, key, fingerprint, state, created_at, locked_at, expires_at)
       values (?, 'test', ?, ?, 'in_progress', ?, ?, ?)`,
      [accountId, key, requestFingerprint(body), now, now, new Date(now.getTime() + 86_400_000)],
    );
}
