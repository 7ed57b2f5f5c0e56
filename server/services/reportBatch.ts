/**
 * Batched reads: the same records and the same authorisation as getReport, getTask and listAnalysis, for
 * many ids in one query each. GraphQL resolves a list of reports with their enterprises, tasks and analysis
 * through these (via DataLoader), so a page of 50 reports costs a fixed number of queries, not 50 × N.
 * Every query is scoped to the principal's account and mode: an id of another tenant is simply not found.
 */
import { AnalysisResult, type IAnalysisResult } from '../db/entities/analysisResult.entity.ts';
import { Enterprise, type IEnterprise } from '../db/entities/enterprise.entity.ts';
import { type IReport, Report } from '../db/entities/report.entity.ts';
import { type ITask, Task } from '../db/entities/task.entity.ts';
import { AnalysisItemNotFoundError } from '../errors.ts';
import { isUuid } from '../lib/ids.ts';
import type { Principal } from './apiKeys.ts';
import type { ServiceContext } from './context.ts';

/** Ids that can name a record: anything else is "not found" without a query, as in the single reads. */
function uuids(ids: readonly string[]): string[] {
  return [...new Set(ids.filter(isUuid))];
}

export async function findReportsByIds(
  ctx: ServiceContext,
  principal: Principal,
  ids: readonly string[],
): Promise<Map<string, IReport>> {
  const wanted = uuids(ids);
  if (wanted.length === 0) return new Map();
  const rows = await ctx.db.orm.em
    .fork()
    .find(Report, { id: { $in: wanted }, account: principal.accountId, mode: principal.mode });
  return new Map(rows.map((row) => [row.id, row]));
}

export async function findEnterprisesByIds(
  ctx: ServiceContext,
  principal: Principal,
  ids: readonly string[],
): Promise<Map<string, IEnterprise>> {
  const wanted = uuids(ids);
  if (wanted.length === 0) return new Map();
  const rows = await ctx.db.orm.em
    .fork()
    .find(Enterprise, { id: { $in: wanted }, account: principal.accountId, mode: principal.mode });
  return new Map(rows.map((row) => [row.id, row]));
}

/** The task of each report, keyed by report id (every report has exactly one). */
export async function findTasksByReportIds(
  ctx: ServiceContext,
  principal: Principal,
  reportIds: readonly string[],
): Promise<Map<string, ITask>> {
  const wanted = uuids(reportIds);
  if (wanted.length === 0) return new Map();
  // payload is lazy: the submission it holds is not read here.
  const rows = await ctx.db.orm.em.fork().find(Task, {
    report: { id: { $in: wanted }, account: principal.accountId, mode: principal.mode },
  });
  return new Map(rows.map((row) => [row.report.id, row]));
}

/**
 * Every analysis item of each report, keyed by report id, in catalogue order. Callers check that the report
 * has succeeded first (NotReadyError otherwise), as listAnalysis does; a report without items maps to [].
 */
export async function findAnalysisByReportIds(
  ctx: ServiceContext,
  principal: Principal,
  reportIds: readonly string[],
): Promise<Map<string, IAnalysisResult[]>> {
  const wanted = uuids(reportIds);
  const byReport = new Map<string, IAnalysisResult[]>(wanted.map((id) => [id, []]));
  if (wanted.length === 0) return byReport;
  const rows = await ctx.db.orm.em
    .fork()
    .find(
      AnalysisResult,
      { report: { id: { $in: wanted }, account: principal.accountId, mode: principal.mode } },
      { orderBy: [{ report: 'asc' }, { position: 'asc' }] },
    );
  for (const row of rows) byReport.get(row.report.id)?.push(row);
  return byReport;
}

/** One item out of a report's items, or the same 404 as GET …/analysis/{slug}. */
export function pickAnalysisItem(reportId: string, items: readonly IAnalysisResult[], slug: string) {
  const item = items.find((candidate) => candidate.slug === slug);
  if (!item) throw new AnalysisItemNotFoundError(reportId, slug);
  return item;
}
