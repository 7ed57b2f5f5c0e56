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
import { resolveIndustry } from '../benchmarks/match.ts';
import { AnalysisResult, type IAnalysisResult } from '../db/entities/analysisResult.entity.ts';
import { type IReport, Report, type StoredWarning } from '../db/entities/report.entity.ts';
import { type ITask, Task } from '../db/entities/task.entity.ts';
import { prepared } from '../db/prepared.ts';
import { runSql } from '../db/sql.ts';
import {
  AnalysisItemNotFoundError,
  NotFoundError,
  NotReadyError,
  QueueFullError,
  ValidationError,
} from '../errors.ts';
import { isUuid } from '../lib/ids.ts';
import { submissions } from '../observability/metrics.ts';
import type { Principal } from './apiKeys.ts';
import type { ServiceContext } from './context.ts';

/** When a full queue tells a client to come back: about the time workers take to work through a burst. */
const QUEUE_FULL_RETRY_AFTER_SECONDS = 5;

export interface SubmissionReceipt {
  reportId: string;
  taskId: string;
  enterpriseId: string;
  versionNo: number;
  status: 'pending';
  warnings: StoredWarning[];
}

/**
 * The enterprise, the report and its task in one statement. The enterprise row is found or created, and its
 * report_count taken as the report's version number, under the row's lock: concurrent submissions for one
 * enterprise get distinct versions. The task carries the normalised submission until the job has stored it.
 */
const RECORD_SUBMISSION_SQL = prepared(`
  with enterprise as (
    insert into enterprises (id, account_id, mode, name, info, report_count, created_at, updated_at)
    values ($1, $2, $3, $4, $5::jsonb, 1, $6, $6)
    on conflict (account_id, mode, name) do update
      set report_count = enterprises.report_count + 1,
          info = coalesce(excluded.info, enterprises.info),
          updated_at = excluded.updated_at
    returning id, report_count
  ), report as (
    insert into reports (id, account_id, mode, enterprise_id, version_no, name, accounting_standard, year_start,
      year_end, ai_auto_analysis, enterprise_info, validation_warnings, status, share_is_public, created_at, updated_at)
    select $7, $2, $3, enterprise.id, enterprise.report_count, $4, $8, $9, $10, $11, $5::jsonb, $12::jsonb,
      'pending', true, $6, $6
      from enterprise
    returning id
  ), task as (
    insert into tasks (id, report_id, status, step, attempts, payload, created_at, updated_at)
    select $13, report.id, 'processing', 'queued', 0, $14::jsonb, $6, $6 from report
  )
  select id as enterprise_id, report_count as version_no from enterprise`);

/**
 * Validates a submission and, when it is valid, records the report, its task and its job in one
 * transaction: either all three exist (and the job will run) or none does.
 */
export async function submitReport(
  ctx: ServiceContext,
  principal: Principal,
  body: unknown,
  /** Runs inside the recording transaction with the receipt (the idempotency key's completion). */
  alsoRecord?: (tx: EntityManager, receipt: SubmissionReceipt) => Promise<void>,
): Promise<SubmissionReceipt> {
  const validation = validateSubmission(body);
  if (!validation.ok) throw new ValidationError(validation.errors);
  // Back-pressure: a backlog past the limit answers 503 + Retry-After rather than growing without bound.
  if (!(await ctx.queue.hasRoom(ctx.config.maxQueuedJobs))) {
    submissions.inc({ mode: principal.mode, outcome: 'throttled' });
    throw new QueueFullError(QUEUE_FULL_RETRY_AFTER_SECONDS);
  }
  const input = validation.value;
  const { report: normalised, warnings } = normaliseSubmission(input);
  // An industry code the benchmarks cannot use is a warning, never a rejection (docs/benchmarks.md).
  warnings.push(...resolveIndustry(normalised.enterpriseInfo).warnings);
  const reportId = randomUUID();
  const taskId = randomUUID();
  const now = new Date();
  const em = ctx.db.orm.em.fork();
  const receipt = await em.transactional(async (tx) => {
    // The job first, the enterprise last: the enterprise row stays locked (for the version number) only from
    // the last statement to the commit, so concurrent submissions for one enterprise queue as briefly as can be.
    await ctx.queue.enqueueAnalysis(
      tx.getTransactionContext() as Transaction<unknown>,
      { reportId, taskId },
      principal.accountId,
    );
    const [created] = await runSql<{ enterprise_id: string; version_no: number }>(tx, RECORD_SUBMISSION_SQL, [
      randomUUID(),
      principal.accountId,
      principal.mode,
      normalised.enterpriseName,
      normalised.enterpriseInfo ? JSON.stringify(normalised.enterpriseInfo) : null,
      now,
      reportId,
      normalised.standard,
      input.year_start,
      input.year_end,
      input.ai_auto_analysis === 1,
      JSON.stringify(warnings),
      taskId,
      JSON.stringify(normalised),
    ]);
    if (!created) throw new Error('recording the submission returned no row');
    const recorded: SubmissionReceipt = {
      reportId,
      taskId,
      enterpriseId: created.enterprise_id,
      versionNo: created.version_no,
      status: 'pending',
      warnings,
    };
    await alsoRecord?.(tx, recorded);
    return recorded;
  });
  submissions.inc({ mode: principal.mode, outcome: 'accepted' });
  return receipt;
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
