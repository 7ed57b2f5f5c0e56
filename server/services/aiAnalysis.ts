/**
 * AI interpretation on demand, for a finished report: the whole report, or one item. Both transports (REST
 * now, GraphQL later) call these. Regenerating replaces the earlier AI text and the earlier model-proposed
 * risk items; rule-based risk items are never touched.
 *
 * Synchronous: the answer carries the new text. The model's run is bounded by AI_TIMEOUT_SECONDS ×
 * (AI_MAX_RETRIES + 1); items it has not answered by then get the built-in writer's text. Test-mode reports,
 * and any report when no model is configured, get the built-in writer at once. The run goes through the same
 * batches, circuit breaker and account token budget as the job's step 3.
 */
import { isAnalysisSlug } from '../../worker/engine/registry.ts';
import type { AnalysisOutput } from '../../worker/types.ts';
import {
  aiBudgetMs,
  type InterpretationRun,
  mergeRiskItems,
  writeInterpretations,
} from '../ai/interpretations.ts';
import { accountTokenBudget, addAiUsage } from '../ai/usage.ts';
import { AnalysisResult, type IAnalysisResult } from '../db/entities/analysisResult.entity.ts';
import type { IReport } from '../db/entities/report.entity.ts';
import { runSql } from '../db/sql.ts';
import { AnalysisItemNotFoundError } from '../errors.ts';
import type { Principal } from './apiKeys.ts';
import type { ServiceContext } from './context.ts';
import { findReadyReport, type ReportAnalysis } from './reports.ts';

/** Writes the AI interpretation of every item of a report; returns the whole updated analysis list. */
export async function generateReportAiAnalysis(
  ctx: ServiceContext,
  principal: Principal,
  reportId: string,
): Promise<ReportAnalysis> {
  const em = ctx.db.orm.em.fork();
  const report = await findReadyReport(em, principal, reportId);
  const rows = await em.find(AnalysisResult, { report: report.id }, { orderBy: { position: 'asc' } });
  await generate(ctx, report, rows);
  return { report, items: await reload(ctx, report.id) };
}

/** Writes the AI interpretation of one item; 404 `analysis_item_not_found` for a slug the report lacks. */
export async function generateAnalysisItemAi(
  ctx: ServiceContext,
  principal: Principal,
  reportId: string,
  slug: string,
): Promise<IAnalysisResult> {
  const em = ctx.db.orm.em.fork();
  const report = await findReadyReport(em, principal, reportId);
  // Every item is loaded: core_risk_insight's text quotes the report's headline figures.
  const rows = await em.find(AnalysisResult, { report: report.id }, { orderBy: { position: 'asc' } });
  if (!isAnalysisSlug(slug) || !rows.some((row) => row.slug === slug))
    throw new AnalysisItemNotFoundError(report.id, slug);
  await generate(ctx, report, rows, [slug]);
  const item = (await reload(ctx, report.id)).find((row) => row.slug === slug);
  if (!item) throw new AnalysisItemNotFoundError(report.id, slug);
  return item;
}

async function generate(
  ctx: ServiceContext,
  report: IReport,
  rows: IAnalysisResult[],
  slugs?: string[],
): Promise<InterpretationRun> {
  const outputs: AnalysisOutput[] = rows.map((row) => ({
    slug: row.slug,
    sp_result: row.spResult,
    risk_items: row.riskItems,
  }));
  const run = await writeInterpretations(ctx, {
    reportId: report.id,
    mode: report.mode,
    brief: {
      accountingStandard: report.accountingStandard,
      industry: report.enterpriseInfo?.industry_division ?? report.enterpriseInfo?.industry_sector ?? null,
      yearStart: report.yearStart,
      yearEnd: report.yearEnd,
    },
    items: outputs,
    slugs,
    budgetMs: aiBudgetMs(ctx.config, 'request'),
    tokens:
      report.mode === 'live' && ctx.ai.client
        ? await accountTokenBudget(ctx.db.orm.em.fork(), report.account.id, ctx.config.aiDailyTokenBudget)
        : undefined,
  });
  const bySlug = new Map(rows.map((row) => [row.slug, row]));
  const updates = run.items.map((item) => ({
    slug: item.slug,
    ai_content: item.ai_content,
    ai_source: item.ai_source,
    risk_items: mergeRiskItems(bySlug.get(item.slug)?.riskItems ?? [], item.model_risk_items),
  }));
  await ctx.db.orm.em.fork().transactional(async (tx) => {
    await runSql(
      tx,
      `update analysis_results as a
         set ai_content = x.ai_content, ai_source = x.ai_source, risk_items = x.risk_items
       from json_to_recordset($2::json) as x(slug text, ai_content text, ai_source text, risk_items json)
       where a.report_id = $1 and a.slug = x.slug`,
      [report.id, JSON.stringify(updates)],
    );
    await addAiUsage(tx, report.id, run.usage, new Date());
  });
  return run;
}

async function reload(ctx: ServiceContext, reportId: string): Promise<IAnalysisResult[]> {
  return ctx.db.orm.em.fork().find(AnalysisResult, { report: reportId }, { orderBy: { position: 'asc' } });
}
