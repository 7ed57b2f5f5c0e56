/**
 * The analysis job, in the spec's four steps: store the statements in normalised form, compute the
 * indicators (Piscina pool), the AI step, assemble the report (results, status, share token).
 *
 * Every step can run again: a retried attempt (after a crash, a timeout or an error) replaces what an
 * earlier attempt wrote, and a report that is no longer pending is left alone.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Db, Job } from 'pg-boss';
import type { Logger } from 'pino';
import { type ComputedItem, toAnalysisOutputs, withCoreRiskInsight } from '../../worker/computed.ts';
import { ANALYSIS_SLUGS } from '../../worker/engine/registry.ts';
import {
  aiBudgetMs,
  type InterpretationRun,
  mergeRiskItems,
  writeBuiltinInterpretations,
  writeInterpretations,
} from '../ai/interpretations.ts';
import { accountTokenBudget, addAiUsage } from '../ai/usage.ts';
import {
  benchmarkForReport,
  benchmarkRecord,
  industryBenchmarkJson,
  PEER_VALUES_INSERT_SQL,
} from '../benchmarks/forReport.ts';
import { Report } from '../db/entities/report.entity.ts';
import { Task } from '../db/entities/task.entity.ts';
import { prepared } from '../db/prepared.ts';
import { pendingReportWhere, runSql, sqlState, Utf8Json } from '../db/sql.ts';
import { newShareToken } from '../lib/ids.ts';
import { jobStepDuration } from '../observability/metrics.ts';
import type { ServiceContext } from '../services/context.ts';
import {
  DELIVERIES_INSERT_SQL,
  emitReportEvent,
  HANDED_OFF_SQL,
  type HandedOff,
  handOffLeaseSql,
} from '../webhooks/delivery.ts';
import { reportEvent, serialiseEvent } from '../webhooks/payload.ts';
import { type AnalysisJobData, type AnalysisOutcome, fetchAsCte } from './queue.ts';

/** A failure that retrying cannot fix (the job's input is unusable): the report fails at once. */
export class PermanentJobError extends Error {}

/** What the job reads when it claims an attempt. */
interface ClaimedTask {
  /** The normalised submission as JSON text: it goes to the pool as it is (see worker/computed.ts). */
  payload: string | null;
  ai_auto_analysis: boolean;
  /** The report's owner and version: for its benchmark peers and its webhook event, without reading it again. */
  account_id: string;
  mode: string;
  enterprise_id: string;
  version_no: number;
  /**
   * What the benchmark match reads of the submission (its enterpriseInfo and last year), as JSON text: a few kB
   * to parse on the main thread instead of the whole submission (≈ 35 kB for six years), which only the pool parses.
   */
  benchmark_view: string | null;
}

/**
 * CTEs `claimed` and `stored`: for the tasks whose id satisfies `taskId` (an SQL condition on `t.id`) that are still
 * processing, at time `now`, claim an attempt and do step 1 (store) in the same statement: count the attempt,
 * store the statements in normalised form — one row per year and sheet, taken from the stored submission inside the
 * database (it does not travel back to us for this; a retried attempt overwrites the rows of an earlier one) — and
 * enter the compute step, durably before the CPU work (so a crash from then on shows in `attempts`). `claimed`
 * returns each task's submission and what the job needs of its report. One statement and one transaction instead
 * of a claim and a store of their own.
 *
 * The condition finds the tasks by their key whatever the statistics say: a join with the ids let the planner, with
 * statistics from a quiet moment (no task processing), walk every processing task — and look up each one's report —
 * to claim the few a fetch took: a backlog's size in rows per fetch (docs/performance.md, sixteenth stop).
 */
function claimAndStoreCtes(taskId: string, now: string): string {
  return `claimed as (
    update tasks as t
       set step = 'compute', attempts = t.attempts + 1, started_at = coalesce(t.started_at, ${now}::timestamptz),
           updated_at = ${now}::timestamptz
      from reports as r
     where ${taskId} and t.status = 'processing' and r.id = t.report_id
    returning t.id as task_id, t.payload, r.id as report_id, r.ai_auto_analysis, r.account_id, r.mode,
              r.enterprise_id, r.version_no
  ), stored as (
    insert into statements (report_id, fiscal_year, sheet_type, lines)
    select claimed.report_id, (year ->> 'year')::int, sheet.key, sheet.value
      from claimed, jsonb_array_elements(claimed.payload -> 'years') as year, jsonb_each(year -> 'sheets') as sheet
    on conflict (report_id, fiscal_year, sheet_type) do update set lines = excluded.lines
  )`;
}

/** ClaimedTask.benchmark_view of the stored submission `payload` (an SQL expression of type jsonb). */
const benchmarkViewSql = (payload: string) =>
  `jsonb_build_object('enterpriseInfo', ${payload} -> 'enterpriseInfo',
                      'years', jsonb_path_query_array(${payload}, '$.years[last]'))::text`;

/** One task's claim and store, for a job fetched without its claim (claimOf: undefined). */
const CLAIM_AND_STORE_SQL = prepared(`
  with ${claimAndStoreCtes('t.id = $1::uuid', '$2')}
  select payload::text as payload, ai_auto_analysis, account_id, mode, enterprise_id, version_no,
         ${benchmarkViewSql('payload')} as benchmark_view
    from claimed`);

/**
 * The dispatcher's fetch of analysis jobs (`fetch`, the text pg-boss's fetch built, with `parameters` parameters) with
 * each fetched job's claim and store (claimAndStoreCtes) in the same statement: one statement for a batch of jobs
 * instead of one more per job. A job whose task is no longer processing (or a second job of one task in the batch)
 * comes back without a claim. The claims' time is the one parameter added. The rows carry the claim as
 * `claim_*` columns (ClaimedTask's, prefixed; `claim_account_id` null: no claim).
 */
export function claimingFetchSql(fetch: string, parameters: number): string {
  // The fetched jobs' task ids as one array, computed once (an InitPlan): the claim then probes the tasks' key.
  const fetchedTask = "t.id = any(array(select (data ->> 'taskId')::uuid from fetched))";
  return `
  with fetched as (${fetch}
  ), ${claimAndStoreCtes(fetchedTask, `$${parameters + 1}`)},
  ranked as (
    select f.*, row_number() over (partition by f.data ->> 'taskId' order by f.id) as task_rank from fetched f
  )
  select f.*, c.payload::text as claim_payload, c.ai_auto_analysis as claim_ai_auto_analysis,
         c.account_id as claim_account_id, c.mode as claim_mode, c.enterprise_id as claim_enterprise_id,
         c.version_no as claim_version_no, ${benchmarkViewSql('c.payload')} as claim_benchmark_view
    from ranked f left join claimed c on c.task_id = (f.data ->> 'taskId')::uuid and f.task_rank = 1`;
}

/** A fetched analysis job as claimingFetchDb's fetch returns it: pg-boss's job and its claim's columns. */
export type ClaimingJob = Job<AnalysisJobData> & {
  [K in keyof ClaimedTask as `claim_${K}`]?: ClaimedTask[K] | null;
};

/**
 * `db` with pg-boss's fetches of analysis jobs run as claimingFetchSql (each text built once). The statement's
 * duration is each claimed job's store step (job_step_duration_seconds{step="store"}): it stored them together.
 * When the statement fails, pg-boss's own fetch runs instead and its jobs claim for themselves: a claim that cannot
 * be made (a task whose statements cannot be stored) then fails its own job, not every fetch of the queue.
 */
export function claimingFetchDb(db: Db, logger: Logger): Db {
  const claiming = fetchAsCte(db, claimingFetchSql, () => [new Date()]);
  return {
    executeSql: async (text, values = []) => {
      const started = performance.now();
      let result: { rows: unknown[] };
      try {
        result = await claiming.executeSql(text, values);
      } catch (error) {
        // Said only when the fetch alone works: a database that cannot be reached is the dispatcher's to report.
        const alone = await db.executeSql(text, values);
        logger.warn({ err: error }, 'fetching analysis jobs with their claims failed; fetched them alone');
        return alone;
      }
      const seconds = (performance.now() - started) / 1000;
      for (const row of result.rows as Array<{ claim_account_id: unknown }>)
        if (row.claim_account_id !== null) jobStepDuration.observe({ step: 'store' }, seconds);
      return result;
    },
  };
}

/**
 * The claim a claimingFetchDb fetch took for `job`: null when it found the task no longer processing, undefined
 * when the fetch made no claims (pg-boss's own fetch, see claimingFetchDb): the job then claims for itself.
 */
export function claimOf(job: ClaimingJob): ClaimedTask | null | undefined {
  if (job.claim_account_id === undefined) return undefined;
  // The report's account is never null: a row without it has no claim (a claimed task's payload may be, see below).
  if (job.claim_account_id === null) return null;
  return {
    payload: job.claim_payload ?? null,
    ai_auto_analysis: job.claim_ai_auto_analysis!,
    account_id: job.claim_account_id,
    mode: job.claim_mode!,
    enterprise_id: job.claim_enterprise_id!,
    version_no: job.claim_version_no!,
    benchmark_view: job.claim_benchmark_view ?? null,
  };
}

/** Parameters of the assemble statement before the items' rows, and the columns of each row. */
const ASSEMBLE_FIXED = 15;
const RESULT_COLUMNS = 6;
/** The assemble statement's text by queue and number of items (always every slug: one text, built once). */
const assembleTexts = new WeakMap<object, Map<number, string>>();

/**
 * Step 4 in one statement (for `items` rows): every item (a retried attempt overwrites an earlier one's), the
 * report's success and share token, the industry sets it used and its peer values, its report.succeeded delivery to each enabled
 * webhook endpoint of its account and mode (only when this statement moved it out of pending; the delivery rows are
 * the deliveries' queue; the first is inserted leased, handed to this process's delivery worker, when $14 says it has a
 * slot: handOffLeaseSql), the job's own completion (fenced to the attempt: JobQueue.analysisCompletionCte), and the task's end, which
 * also drops the stored submission and the AI texts kept for a retry. It returns whether it completed the job, and the
 * delivery handed off (HANDED_OFF_SQL).
 * Each item's values are parameters of their own: PostgreSQL then only checks each document, where one JSON array
 * of every item had to be taken apart (twice the database's CPU for this write). One statement instead of five
 * (with the transaction's begin and commit, which it no longer needs): each round trip on loopback TCP costs the
 * main thread a write and a wake-up.
 */
function assembleSql(ctx: ServiceContext, items: number): string {
  let texts = assembleTexts.get(ctx.queue);
  if (!texts) {
    texts = new Map<number, string>();
    assembleTexts.set(ctx.queue, texts);
  }
  const known = texts.get(items);
  if (known !== undefined) return known;
  const rows = Array.from({ length: items }, (_, i) => {
    const p = ASSEMBLE_FIXED + i * RESULT_COLUMNS;
    return `($1, $${p + 1}, $${p + 2}::int, $${p + 3}::json, $${p + 4}::json, $${p + 5}, $${p + 6}, $2)`;
  });
  const text = prepared(`
  with results as (
    insert into analysis_results (report_id, slug, position, sp_result, risk_items, ai_content, ai_source, cached_at)
    values ${rows.join(', ')}
    on conflict (report_id, slug) do update
      set position = excluded.position, sp_result = excluded.sp_result, risk_items = excluded.risk_items,
          ai_content = excluded.ai_content, ai_source = excluded.ai_source, cached_at = excluded.cached_at
  ), report as (
    update reports set status = 'success', share_token = $4, completed_at = $2, updated_at = $2
     where ${pendingReportWhere('$1')}
    returning id
  ), sets as (
    insert into report_benchmark_sets (report_id, set_id, set_name, edition, data_year)
    select $1, s.set_id, s.set_name, s.edition, s.data_year
      from jsonb_to_recordset($5::jsonb) as s(set_id text, set_name text, edition text, data_year int)
    on conflict (report_id, set_id) do nothing
  ), deliveries as (
    ${DELIVERIES_INSERT_SQL('$6', '$7', '$8', '$9', '$10', '$2', handOffLeaseSql('$14', '$6', '$15'))}
       and exists (select 1 from report)
    on conflict (endpoint_id, event_key) do nothing
    returning id, endpoint_id, attempt_started_at
  ), peers as (${PEER_VALUES_INSERT_SQL('$1', '$13::jsonb', '$2')}
  ), ${ctx.queue.analysisCompletionCte('job_done', '$11', '$12')}
  update tasks
     set status = 'success', step = 'done', finished_at = $2, updated_at = $2, payload = null, error_message = null,
         ai_result = null
   where id = $3
  returning (select count(*) from job_done)::int as completed, ${HANDED_OFF_SQL('deliveries')} as handed_off`);
  texts.set(items, text);
  return text;
}

/** Runs one step of the job, observing its duration (job_step_duration_seconds). */
async function timed<T>(step: 'compute' | 'ai' | 'assemble', run: () => Promise<T>): Promise<T> {
  const end = jobStepDuration.startTimer({ step });
  try {
    return await run();
  } finally {
    end();
  }
}

/**
 * Runs one attempt of a report's analysis. With `attempt` (the pg-boss job this is, as the dispatcher fetched it),
 * the job is completed inside the assemble transaction and 'completed' is returned; otherwise the caller completes it.
 */
export async function analyseReport(
  ctx: ServiceContext,
  data: AnalysisJobData,
  logger: Logger,
  attempt?: { id: string; retryCount: number },
  claimed?: ClaimedTask | null,
): Promise<AnalysisOutcome> {
  const em = ctx.db.orm.em.fork();
  // Step 1 (store) with the claim: see CLAIM_AND_STORE_SQL — done by the job's fetch when `claimed` is given
  // (claimingFetchDb; null: it found the task no longer processing).
  let task: ClaimedTask | null | undefined = claimed;
  if (task === undefined) {
    const endStore = jobStepDuration.startTimer({ step: 'store' });
    [task] = await runSql<ClaimedTask>(em, CLAIM_AND_STORE_SQL, [data.taskId, new Date()]);
    if (task) endStore();
  }
  if (!task) {
    logger.info(data, 'analysis job has nothing to do');
    return;
  }
  const endJob = jobStepDuration.startTimer({ step: 'job' });
  try {
    if (task.payload === null) throw new PermanentJobError('the stored submission is missing');
    const payload = task.payload;

    // Step 2: compute every analysis item in the worker pool, against the report's matched industry benchmark.
    const owner = { accountId: task.account_id, mode: task.mode, enterpriseId: task.enterprise_id };
    const matched = await benchmarkForReport(
      em,
      task.benchmark_view ?? payload,
      ctx.config.benchmarkPeerMinimum,
      owner,
      ctx.readCache,
    );
    const items = withCoreRiskInsight(
      await timed('compute', () => ctx.pool.compute(payload, ANALYSIS_SLUGS)),
      matched.benchmark,
    );
    const benchmarkJson = industryBenchmarkJson(items);
    const benchmark = benchmarkRecord(matched, benchmarkJson);

    // Step 3: the AI interpretation, when the report asked for it. Never fails the report.
    const ai = task.ai_auto_analysis
      ? await timed('ai', () => runAiStep(ctx, em, data, items, logger))
      : null;
    const written = new Map(ai?.items.map((item) => [item.slug, item]));

    // Step 4: assemble — results, AI texts, the share token and the final statuses, atomically.
    const completedAt = new Date();
    const shareToken = newShareToken();
    const event = reportEvent(
      {
        id: data.reportId,
        task_id: data.taskId,
        status: 'success',
        version_no: task.version_no,
        share_token: shareToken,
        error_message: null,
      },
      `${ctx.config.appUrl}/shared/reports/`,
      completedAt,
    );
    const eventPayload = serialiseEvent(event);
    const params: unknown[] = [
      data.reportId,
      completedAt,
      data.taskId,
      shareToken,
      benchmark.setsUsed,
      task.account_id,
      task.mode,
      `${event.type}:${data.reportId}`,
      event.type,
      eventPayload,
      ...ctx.queue.completionParams(attempt),
      benchmark.peerRows,
      // $14 (set below), $15: whether this process's delivery worker takes the report's event, the per-account cap.
      false,
      ctx.config.webhookAccountConcurrency,
    ];
    items.forEach((item, position) => {
      const text = written.get(item.slug);
      const risks = text ? mergeRiskItems(item.risk_items, text.model_risk_items) : item.risk_items;
      // sp_result is UTF-8 JSON already (serialised and encoded in the pool): it goes to the database as it is.
      params.push(item.slug, position, new Utf8Json(item.spResultUtf8), JSON.stringify(risks));
      params.push(text?.ai_content ?? null, text?.ai_source ?? null);
    });
    const sql = assembleSql(ctx, items.length);
    const assemble = async (em: EntityManager) => {
      const [assembled] = await runSql<{ completed: number; handed_off: HandedOff | null }>(em, sql, params);
      return assembled;
    };
    // The event goes to this process's delivery worker when it has a slot (handOffLeaseSql), once committed.
    const handOff = ctx.deliveries?.reserveHandOff() ?? false;
    params[13] = handOff;
    let handedOff: HandedOff | null = null;
    let completed = false;
    try {
      // Without AI usage to add, the assemble statement is all there is: it commits on its own.
      const assembled = await timed('assemble', () =>
        !ai
          ? assemble(em)
          : em.transactional(async (tx) => {
              // Before the report leaves pending: the usage is added only while it is pending (not twice on a retry).
              await addAiUsage(tx, data.reportId, ai.usage, completedAt, { onlyPending: true });
              return assemble(tx);
            }),
      );
      completed = (assembled?.completed ?? 0) > 0;
      handedOff = assembled?.handed_off ?? null;
    } finally {
      if (handOff) ctx.deliveries!.adoptHandOff(handedOff, eventPayload);
    }
    endJob();
    return completed ? 'completed' : undefined;
  } catch (error) {
    // The report was deleted during the attempt (its rows' foreign keys refuse them): nothing is left to analyse.
    if (sqlState(error) === FOREIGN_KEY_VIOLATION && !(await reportExists(em, data.reportId))) {
      logger.info(data, 'the report was deleted while it was being analysed; the job ends');
      return;
    }
    if (error instanceof PermanentJobError) {
      await markFailed(ctx, data, `The report could not be analysed: ${error.message}.`);
      return;
    }
    // Keep the reason of the latest failed attempt: it becomes error_message if the retries run out.
    await em
      .nativeUpdate(
        Task,
        { id: data.taskId },
        { errorMessage: describeFailure(error), updatedAt: new Date() },
      )
      .catch(() => undefined);
    throw error;
  }
}

const FOREIGN_KEY_VIOLATION = '23503';

async function reportExists(em: EntityManager, reportId: string): Promise<boolean> {
  return (await runSql(em, 'select 1 from reports where id = $1', [reportId])).length > 0;
}

/**
 * Step 3, for a report with ai_auto_analysis. Its texts and usage are stored on the task as soon as it ends, so
 * an attempt that dies before assembling is retried without paying the model again: the retry finds them and
 * reuses them (step 4 stores them with the results and clears them). A failure of the model machinery is
 * logged and answered by the built-in writer; only a database error (loading the report, recording the step)
 * propagates, as in the other steps.
 */
async function runAiStep(
  ctx: ServiceContext,
  em: EntityManager,
  data: AnalysisJobData,
  items: readonly ComputedItem[],
  logger: Logger,
): Promise<InterpretationRun | null> {
  const [earlier] = await runSql<{ ai_result: InterpretationRun | null }>(
    em,
    'select ai_result from tasks where id = $1',
    [data.taskId],
  );
  if (earlier?.ai_result) {
    logger.info(
      { calls: earlier.ai_result.usage.calls, total_tokens: earlier.ai_result.usage.total_tokens },
      'AI texts of an earlier attempt reused: the model is not called again',
    );
    return earlier.ai_result;
  }
  const row = await em.findOne(Report, { id: data.reportId });
  if (!row) return null;
  await em.nativeUpdate(Task, { id: data.taskId }, { step: 'ai', updatedAt: new Date() });
  const outputs = toAnalysisOutputs(items);
  let run: InterpretationRun;
  try {
    run = await writeInterpretations(ctx, {
      reportId: data.reportId,
      mode: row.mode,
      brief: {
        accountingStandard: row.accountingStandard,
        industry: row.enterpriseInfo?.industry_division ?? row.enterpriseInfo?.industry_sector ?? null,
        yearStart: row.yearStart,
        yearEnd: row.yearEnd,
      },
      items: outputs,
      budgetMs: aiBudgetMs(ctx.config, 'job'),
      tokens:
        row.mode === 'live' && ctx.ai.client
          ? await accountTokenBudget(em, row.account.id, ctx.config.aiDailyTokenBudget)
          : undefined,
    });
  } catch (error) {
    logger.error({ err: error }, 'the AI step failed; the built-in writer wrote every interpretation');
    const items = writeBuiltinInterpretations({ items: outputs }, logger);
    run = {
      items,
      usage: {
        model: null,
        calls: 0,
        prompt_tokens: 0,
        completion_tokens: 0,
        total_tokens: 0,
        fallbacks: items.length,
        model_items: 0,
        builtin_items: items.filter((item) => item.ai_source === 'builtin').length,
        fallback_reasons: {},
      },
    };
  }
  // Only a run that called the model is worth keeping: the built-in writer's texts cost nothing to write again.
  if (run.usage.calls > 0)
    await runSql(
      em,
      `update tasks set ai_result = $2::jsonb, step = 'assemble', updated_at = $3 where id = $1`,
      [data.taskId, JSON.stringify(run), new Date()],
    );
  return run;
}

/** What a client may read about an internal failure: the kind of error, never internals such as SQL. */
function describeFailure(error: unknown): string {
  const name = error instanceof Error ? error.name : 'Error';
  return `The analysis failed with an internal error (${name}) and was retried.`;
}

/** Marks a still-pending report and its task failed. Used when a job gives up or its retries run out. */
export async function markFailed(
  ctx: ServiceContext,
  data: AnalysisJobData,
  message?: string,
): Promise<void> {
  const em = ctx.db.orm.em.fork();
  await em.transactional(async (tx) => {
    const task = await tx.findOne(Task, { id: data.taskId });
    const reason = message ?? task?.errorMessage ?? 'The analysis job did not finish after all its attempts.';
    const now = new Date();
    await runSql(
      tx,
      `update reports set status = 'failed', error_message = $2, completed_at = $3, updated_at = $3
        where ${pendingReportWhere('$1')}`,
      [data.reportId, reason, now],
    );
    await tx.nativeUpdate(
      Task,
      { id: data.taskId, status: 'processing' },
      { status: 'failed', errorMessage: reason, finishedAt: now, updatedAt: now },
    );
    // report.failed, committed with the failure (once per endpoint however often this runs).
    await emitReportEvent(ctx, tx, data.reportId);
  });
}
