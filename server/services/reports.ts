/**
 * Report use cases: submit (validate, record, enqueue — atomically), read a report, its task, its analysis.
 * Both transports (REST now, GraphQL later) call these and nothing else; authorisation happens here.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
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

/** The idempotency key a submission records with itself (server/services/idempotency.ts). */
export interface IdempotencyRecord {
  key: string;
  /** SHA-256 of the body's canonical JSON. */
  fingerprint: string;
  now: Date;
  expiresAt: Date;
  /** A claim `in_progress` (the earlier design's) locked before this is abandoned and taken over. */
  abandonedBefore: Date;
}

/** Raised by the submission statement when its idempotency key belongs to another request (migration 20261129). */
export const KEY_TAKEN_SQLSTATE = 'FRA01';

/**
 * The whole submission in one statement, so in one round trip and one transaction of its own: the enterprise, the
 * report, its task, its pg-boss job (JobQueue.analysisJobInsertCtes) and, with an Idempotency-Key, the key completed with
 * the receipt to replay — either all exist (and the job will run) or none does.
 *
 * The enterprise row is found or created, and its report_count taken as the report's version number, under the
 * row's lock: concurrent submissions for one enterprise get distinct versions. The task carries the normalised
 * submission until the job has stored it.
 *
 * The key (server/services/idempotency.ts): a transaction-scoped advisory lock on it comes first — while another
 * request holds it, its key written and its statement not yet committed, nothing is inserted (no wait on the other's
 * uncommitted row). On a conflict with a committed row, the row is taken over only when it expired, is an abandoned
 * claim, or answered with a report since deleted (report_id set to null by the foreign key, evaluated on the row as
 * committed). When the key is not recorded, the statement raises KEY_TAKEN_SQLSTATE and everything it wrote is
 * rolled back with it.
 */
function recordSubmissionSql(queue: ServiceContext['queue'], withKey: boolean): string {
  const cache = withKey ? submissionWithKeySql : submissionSql;
  const known = cache.get(queue);
  if (known !== undefined) return known;
  const key = withKey
    ? `, lock as (
    select pg_try_advisory_xact_lock(hashtextextended($2::text || ' ' || $3::text || ' ' || $16::text, 7)) as held
  ), idempotency_key as (
    insert into idempotency_keys as k (account_id, mode, key, fingerprint, state, status_code, response, report_id,
                                       created_at, locked_at, expires_at)
    select $2, $3, $16, $17, 'completed', 202,
           jsonb_build_object('reportId', report.id, 'taskId', task.id, 'enterpriseId', enterprise.id,
                              'versionNo', enterprise.report_count, 'status', 'pending', 'warnings', $12::jsonb),
           report.id, $18::timestamptz, $18::timestamptz, $19::timestamptz
      from lock, enterprise, report, task where held
    on conflict (account_id, mode, key) do update
       set fingerprint = excluded.fingerprint, state = 'completed', status_code = excluded.status_code,
           response = excluded.response, report_id = excluded.report_id, created_at = excluded.created_at,
           locked_at = excluded.locked_at, expires_at = excluded.expires_at
     where k.expires_at <= $18::timestamptz or (k.state = 'in_progress' and k.locked_at < $20::timestamptz)
        or (k.state = 'completed' and k.fingerprint = $17 and k.report_id is null)
    returning true as recorded
  )`
    : '';
  const text = prepared(`
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
    returning id
  ), ${queue.analysisJobInsertCtes('analysis_job', '$15::text::json')}${key}
  select id as enterprise_id, report_count as version_no, (select count(*) from analysis_job_notified) as notified${
    withKey
      ? `,
         case when exists (select 1 from idempotency_key) then true else fra_idempotency_key_taken() end as recorded`
      : ''
  }
    from enterprise`);
  cache.set(queue, text);
  return text;
}
const submissionSql = new WeakMap<object, string>();
const submissionWithKeySql = new WeakMap<object, string>();

/**
 * Validates a submission and, when it is valid, records the report, its task, its job and (with `idempotency`) its
 * key in one statement: either all exist (and the job will run) or none does. With a key that belongs to another
 * request, the statement records nothing and fails with KEY_TAKEN_SQLSTATE.
 */
export async function submitReport(
  ctx: ServiceContext,
  principal: Principal,
  body: unknown,
  idempotency?: IdempotencyRecord,
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
  const now = idempotency?.now ?? new Date();
  const params: unknown[] = [
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
    ctx.queue.analysisJobJson({ reportId, taskId }, principal.accountId),
  ];
  if (idempotency)
    params.push(
      idempotency.key,
      idempotency.fingerprint,
      idempotency.now,
      idempotency.expiresAt,
      idempotency.abandonedBefore,
    );
  const [created] = await runSql<{ enterprise_id: string; version_no: number }>(
    ctx.db.orm.em.fork(),
    recordSubmissionSql(ctx.queue, idempotency !== undefined),
    params,
  );
  if (!created) throw new Error('recording the submission returned no row');
  ctx.queue.enqueued(1);
  submissions.inc({ mode: principal.mode, outcome: 'accepted' });
  return {
    reportId,
    taskId,
    enterpriseId: created.enterprise_id,
    versionNo: created.version_no,
    status: 'pending',
    warnings,
  };
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
