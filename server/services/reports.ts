/**
 * Report use cases: submit (validate, record, enqueue — atomically), read a report, its task, its analysis.
 * Both transports (REST now, GraphQL later) call these and nothing else; authorisation happens here.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Transaction } from 'kysely';
import { validateSubmission } from '../../schema/submission.ts';
import { isAnalysisSlug } from '../../worker/engine/registry.ts';
import { normaliseSubmission } from '../../worker/normalise.ts';
import { AnalysisResult, type IAnalysisResult } from '../db/entities/analysisResult.entity.ts';
import { type IReport, Report, type StoredWarning } from '../db/entities/report.entity.ts';
import { type ITask, Task } from '../db/entities/task.entity.ts';
import { runSql } from '../db/sql.ts';
import { AnalysisItemNotFoundError, NotFoundError, NotReadyError, ValidationError } from '../errors.ts';
import { isUuid } from '../lib/ids.ts';
import type { Principal } from './apiKeys.ts';
import type { ServiceContext } from './context.ts';

export interface SubmissionReceipt {
  reportId: string;
  taskId: string;
  enterpriseId: string;
  versionNo: number;
  status: 'pending';
  warnings: StoredWarning[];
}

/**
 * Validates a submission and, when it is valid, records the report, its task and its job in one
 * transaction: either all three exist (and the job will run) or none does.
 */
export async function submitReport(
  ctx: ServiceContext,
  principal: Principal,
  body: unknown,
): Promise<SubmissionReceipt> {
  const validation = validateSubmission(body);
  if (!validation.ok) throw new ValidationError(validation.errors);
  const input = validation.value;
  const { report: normalised, warnings } = normaliseSubmission(input);
  const reportId = randomUUID();
  const taskId = randomUUID();
  const now = new Date();
  const em = ctx.db.orm.em.fork();
  const { enterpriseId, versionNo } = await em.transactional(async (tx) => {
    // One statement finds or creates the enterprise and takes the next version number under its row lock.
    const [enterprise] = await runSql<{ id: string; report_count: number }>(
      tx,
      `insert into enterprises (id, account_id, mode, name, info, report_count, created_at, updated_at)
       values ($1, $2, $3, $4, $5::jsonb, 1, $6, $6)
       on conflict (account_id, mode, name) do update
         set report_count = enterprises.report_count + 1,
             info = coalesce(excluded.info, enterprises.info),
             updated_at = excluded.updated_at
       returning id, report_count`,
      [
        randomUUID(),
        principal.accountId,
        principal.mode,
        normalised.enterpriseName,
        normalised.enterpriseInfo ? JSON.stringify(normalised.enterpriseInfo) : null,
        now,
      ],
    );
    if (!enterprise) throw new Error('enterprise upsert returned no row');
    await runSql(
      tx,
      `insert into reports (id, account_id, mode, enterprise_id, version_no, name, accounting_standard, year_start,
         year_end, ai_auto_analysis, enterprise_info, validation_warnings, status, share_is_public, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12::jsonb, 'pending', true, $13, $13)`,
      [
        reportId,
        principal.accountId,
        principal.mode,
        enterprise.id,
        enterprise.report_count,
        normalised.enterpriseName,
        normalised.standard,
        input.year_start,
        input.year_end,
        input.ai_auto_analysis === 1,
        normalised.enterpriseInfo ? JSON.stringify(normalised.enterpriseInfo) : null,
        JSON.stringify(warnings),
        now,
      ],
    );
    await runSql(
      tx,
      `insert into tasks (id, report_id, status, step, attempts, payload, created_at, updated_at)
       values ($1, $2, 'processing', 'queued', 0, $3::jsonb, $4, $4)`,
      [taskId, reportId, JSON.stringify(normalised), now],
    );
    await ctx.queue.enqueueAnalysis(tx.getTransactionContext() as Transaction<unknown>, { reportId, taskId });
    return { enterpriseId: enterprise.id, versionNo: enterprise.report_count };
  });
  return { reportId, taskId, enterpriseId, versionNo, status: 'pending', warnings };
}

/** A report the principal may see, or NotFoundError (other tenants' and other modes' reports do not exist). */
export async function getReport(
  ctx: ServiceContext,
  principal: Principal,
  reportId: string,
): Promise<IReport> {
  return findVisibleReport(ctx.db.orm.em.fork(), principal, reportId);
}

async function findVisibleReport(
  em: EntityManager,
  principal: Principal,
  reportId: string,
): Promise<IReport> {
  if (!isUuid(reportId)) throw new NotFoundError('report', reportId);
  const report = await em.findOne(Report, {
    id: reportId,
    account: principal.accountId,
    mode: principal.mode,
  });
  if (!report) throw new NotFoundError('report', reportId);
  return report;
}

export async function getTask(ctx: ServiceContext, principal: Principal, taskId: string): Promise<ITask> {
  if (!isUuid(taskId)) throw new NotFoundError('task', taskId);
  const em = ctx.db.orm.em.fork();
  // payload is a lazy property: it is not loaded here.
  const task = await em.findOne(Task, {
    id: taskId,
    report: { account: principal.accountId, mode: principal.mode },
  });
  if (!task) throw new NotFoundError('task', taskId);
  return task;
}

export interface ReportAnalysis {
  report: IReport;
  items: IAnalysisResult[];
}

/** Every analysis item of a finished report, in catalogue order. 409 before the report has succeeded. */
export async function listAnalysis(
  ctx: ServiceContext,
  principal: Principal,
  reportId: string,
): Promise<ReportAnalysis> {
  const em = ctx.db.orm.em.fork();
  const report = await findReadyReport(em, principal, reportId);
  const items = await em.find(AnalysisResult, { report: report.id }, { orderBy: { position: 'asc' } });
  return { report, items };
}

export async function getAnalysisItem(
  ctx: ServiceContext,
  principal: Principal,
  reportId: string,
  slug: string,
): Promise<IAnalysisResult> {
  const em = ctx.db.orm.em.fork();
  const report = await findReadyReport(em, principal, reportId);
  const item = isAnalysisSlug(slug) ? await em.findOne(AnalysisResult, { report: report.id, slug }) : null;
  if (!item) throw new AnalysisItemNotFoundError(report.id, slug);
  return item;
}

/** A report the principal may see that has succeeded: 404 when it is not visible, 409 before success. */
export async function findReadyReport(
  em: EntityManager,
  principal: Principal,
  reportId: string,
): Promise<IReport> {
  const report = await findVisibleReport(em, principal, reportId);
  if (report.status !== 'success') throw new NotReadyError(report.id, report.status);
  return report;
}
