/**
 * The analysis job, in the spec's four steps: store the statements in normalised form, compute the
 * indicators (Piscina pool), the AI step, assemble the report (results, status, share token).
 *
 * Every step can run again: a retried attempt (after a crash, a timeout or an error) replaces what an
 * earlier attempt wrote, and a report that is no longer pending is left alone.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { ANALYSIS_SLUGS, assembleReportItems } from '../../worker/engine/registry.ts';
import type { AnalysisOutput, NormalisedReport } from '../../worker/types.ts';
import {
  aiBudgetMs,
  type InterpretationRun,
  mergeRiskItems,
  writeBuiltinInterpretations,
  writeInterpretations,
} from '../ai/interpretations.ts';
import { addAiUsage } from '../ai/usage.ts';
import { AnalysisResult } from '../db/entities/analysisResult.entity.ts';
import { Report } from '../db/entities/report.entity.ts';
import { Statement } from '../db/entities/statement.entity.ts';
import { Task } from '../db/entities/task.entity.ts';
import { runSql } from '../db/sql.ts';
import { newShareToken } from '../lib/ids.ts';
import type { ServiceContext } from '../services/context.ts';
import type { AnalysisJobData } from './queue.ts';

/** A failure that retrying cannot fix (the job's input is unusable): the report fails at once. */
export class PermanentJobError extends Error {}

export async function analyseReport(
  ctx: ServiceContext,
  data: AnalysisJobData,
  logger: Logger,
): Promise<void> {
  const em = ctx.db.orm.em.fork();
  const task = await em.findOne(Task, { id: data.taskId }, { populate: ['payload'] });
  if (task?.status !== 'processing') {
    logger.info({ ...data, status: task?.status }, 'analysis job has nothing to do');
    return;
  }
  const report = task.payload as NormalisedReport | null;
  try {
    if (!report || !Array.isArray(report.years))
      throw new PermanentJobError('the stored submission is missing');

    // Step 1: store the statements in normalised form (replacing any rows of an earlier attempt).
    const now = new Date();
    await em.nativeUpdate(
      Task,
      { id: task.id },
      { step: 'store', attempts: task.attempts + 1, startedAt: task.startedAt ?? now, updatedAt: now },
    );
    const retry = task.attempts > 0;
    await em.transactional(async (tx) => {
      if (retry) await tx.nativeDelete(Statement, { report: data.reportId });
      const rows = report.years.flatMap((year) =>
        Object.entries(year.sheets).map(([sheet_type, lines]) => ({
          fiscal_year: year.year,
          sheet_type,
          lines,
        })),
      );
      await runSql(
        tx,
        `insert into statements (report_id, fiscal_year, sheet_type, lines)
         select $1, x.fiscal_year, x.sheet_type, x.lines
         from jsonb_to_recordset($2::jsonb) as x(fiscal_year int, sheet_type text, lines jsonb)`,
        [data.reportId, JSON.stringify(rows)],
      );
      await tx.nativeUpdate(Task, { id: task.id }, { step: 'compute', updatedAt: new Date() });
    });

    // Step 2: compute every analysis item in the worker pool.
    const outputs = assembleReportItems(await ctx.pool.compute(report, ANALYSIS_SLUGS));

    // Step 3: the AI interpretation, when the report asked for it. Never fails the report.
    const ai = await runAiStep(ctx, em, data, task.id, outputs, logger);
    const written = new Map(ai?.items.map((item) => [item.slug, item]));

    // Step 4: assemble — results, AI texts, the share token and the final statuses in one transaction.
    await em.transactional(async (tx) => {
      const cachedAt = new Date();
      if (retry) await tx.nativeDelete(AnalysisResult, { report: data.reportId });
      await runSql(
        tx,
        `insert into analysis_results (report_id, slug, position, sp_result, risk_items, ai_content, ai_source, cached_at)
         select $1, x.slug, x.position, x.sp_result, x.risk_items, x.ai_content, x.ai_source, $2
         from jsonb_to_recordset($3::jsonb)
           as x(slug text, position int, sp_result jsonb, risk_items jsonb, ai_content text, ai_source text)`,
        [
          data.reportId,
          cachedAt,
          JSON.stringify(
            outputs.map((output, position) => {
              const text = written.get(output.slug);
              return {
                slug: output.slug,
                position,
                sp_result: output.sp_result,
                risk_items: mergeRiskItems(output.risk_items, text?.model_risk_items ?? []),
                ai_content: text?.ai_content ?? null,
                ai_source: text?.ai_source ?? null,
              };
            }),
          ),
        ],
      );
      if (ai) await addAiUsage(tx, data.reportId, ai.usage, cachedAt, { onlyPending: true });
      await tx.nativeUpdate(
        Report,
        { id: data.reportId, status: 'pending' },
        {
          status: 'success',
          shareToken: newShareToken(),
          completedAt: cachedAt,
          updatedAt: cachedAt,
        },
      );
      await tx.nativeUpdate(
        Task,
        { id: task.id },
        {
          status: 'success',
          step: 'done',
          finishedAt: cachedAt,
          updatedAt: cachedAt,
          payload: null,
          errorMessage: null,
        },
      );
    });
  } catch (error) {
    if (error instanceof PermanentJobError) {
      await markFailed(ctx, data, `The report could not be analysed: ${error.message}.`);
      return;
    }
    // Keep the reason of the latest failed attempt: it becomes error_message if the retries run out.
    await em
      .nativeUpdate(Task, { id: task.id }, { errorMessage: describeFailure(error), updatedAt: new Date() })
      .catch(() => undefined);
    throw error;
  }
}

/**
 * Step 3. Runs only when the report has ai_auto_analysis; writes nothing itself (the texts are stored with
 * the results in step 4). A failure of the model machinery is logged and answered by the built-in writer;
 * only a database error (loading the report, recording the step) propagates, as in the other steps.
 */
async function runAiStep(
  ctx: ServiceContext,
  em: EntityManager,
  data: AnalysisJobData,
  taskId: string,
  outputs: AnalysisOutput[],
  logger: Logger,
): Promise<InterpretationRun | null> {
  const row = await em.findOne(Report, { id: data.reportId });
  if (!row?.aiAutoAnalysis) return null;
  await em.nativeUpdate(Task, { id: taskId }, { step: 'ai', updatedAt: new Date() });
  try {
    return await writeInterpretations(ctx, {
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
    });
  } catch (error) {
    logger.error({ err: error }, 'the AI step failed; the built-in writer wrote every interpretation');
    const items = writeBuiltinInterpretations({ items: outputs }, logger);
    return {
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
      },
    };
  }
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
    await tx.nativeUpdate(
      Report,
      { id: data.reportId, status: 'pending' },
      { status: 'failed', errorMessage: reason, completedAt: now, updatedAt: now },
    );
    await tx.nativeUpdate(
      Task,
      { id: data.taskId, status: 'processing' },
      { status: 'failed', errorMessage: reason, finishedAt: now, updatedAt: now },
    );
  });
}
