/**
 * The spec's five endpoints under /api/v1/developer, the catalogue and AI analysis on demand. Each handler calls
 * one service and one presenter.
 */
import { Router } from '@koa/router';
import type { Context, Next } from 'koa';
import { textProblem } from '../../schema/text.ts';
import { analysisCatalogue } from '../../worker/catalogue/analysisCatalogue.ts';
import { listUsableBenchmarkSets } from '../benchmarks/sets.ts';
import { REPORT_STATUSES, type ReportStatus } from '../db/entities/report.entity.ts';
import { ValidationError } from '../errors.ts';
import { addImportRoutes } from '../import/importRoutes.ts';
import { conditionalGet, etagOf, matchesIfNoneMatch, notModified } from '../middlewares/conditional.ts';
import { rateLimit } from '../middlewares/rateLimit.ts';
import { presentBenchmarkSet } from '../presenters/benchmarkPresenter.ts';
import {
  presentAnalysisItem,
  presentAnalysisList,
  presentReport,
  presentSubmission,
  presentTask,
  reportPath,
  taskPath,
} from '../presenters/reportPresenter.ts';
import { generateAnalysisItemAi, generateReportAiAnalysis } from '../services/aiAnalysis.ts';
import { authenticateApiKey, type Principal } from '../services/apiKeys.ts';
import type { ServiceContext } from '../services/context.ts';
import { submitReportIdempotently } from '../services/idempotency.ts';
import { deleteReport } from '../services/reportDeletion.ts';
import { cursorAfterReport, DEFAULT_PAGE_SIZE, listReports } from '../services/reportList.ts';
import { getAnalysisItem, getReport, getTask, listAnalysis } from '../services/reports.ts';
import { addWebhookRoutes } from '../webhooks/routes.ts';
import { jsonBody } from './jsonBody.ts';

/** Seconds a client should wait before polling a pending report or task again (Retry-After). */
export const POLL_AFTER_SECONDS = 2;

function oneQueryValue(
  query: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw new ValidationError([{ path: name, message: 'must be given once' }]);
  // The clean-text rule (schema/text.ts) for query parameters too: PostgreSQL refuses NUL in text (a 500).
  const unclean = value === undefined ? undefined : textProblem(value);
  if (unclean) throw new ValidationError([{ path: name, message: unclean }]);
  return value === undefined || value === '' ? undefined : value;
}

function queryTime(query: Record<string, string | string[] | undefined>, name: string): Date | undefined {
  const value = oneQueryValue(query, name);
  if (value === undefined) return undefined;
  const time = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(time.getTime()))
    throw new ValidationError([
      { path: name, message: 'must be an ISO 8601 date-time, e.g. 2026-01-31T00:00:00Z' },
    ]);
  return time;
}

/**
 * GET /reports: newest first, `limit` (1–100, default 20) at a time, the next page `starting_after` the last
 * id of this one (Stripe's list conventions); filters status, enterprise_name, created_gte, created_lt.
 */
async function listReportsPage(
  services: ServiceContext,
  principal: Principal,
  query: Record<string, string | string[] | undefined>,
) {
  const limitText = oneQueryValue(query, 'limit');
  const limit = limitText === undefined ? DEFAULT_PAGE_SIZE : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new ValidationError([{ path: 'limit', message: 'must be an integer from 1 to 100' }]);
  const status = oneQueryValue(query, 'status');
  if (status !== undefined && !(REPORT_STATUSES as readonly string[]).includes(status))
    throw new ValidationError([{ path: 'status', message: `must be one of ${REPORT_STATUSES.join(', ')}` }]);
  const startingAfter = oneQueryValue(query, 'starting_after');
  const page = await listReports(services, principal, {
    first: limit,
    after: startingAfter === undefined ? null : await cursorAfterReport(services, principal, startingAfter),
    status: (status as ReportStatus | undefined) ?? null,
    enterpriseName: oneQueryValue(query, 'enterprise_name') ?? null,
    createdGte: queryTime(query, 'created_gte') ?? null,
    createdLt: queryTime(query, 'created_lt') ?? null,
  });
  const data = page.reports.map(({ report }) => presentReport(report, services.config.appUrl));
  return {
    object: 'list',
    data,
    has_more: page.hasNextPage,
    next_starting_after: page.hasNextPage ? (data.at(-1)?.report_id ?? null) : null,
  };
}

interface State {
  principal: Principal;
}

export function developerRoutes(services: ServiceContext): Router<State> {
  const router = new Router<State>({ prefix: '/api/v1/developer' });

  // Authentication comes first: an anonymous caller learns nothing, not even whether a body is valid.
  router.use(async (ctx: Context, next: Next) => {
    ctx.state.principal = await authenticateApiKey(
      () => services.db.orm.em.fork(),
      ctx.get('X-API-Key') || undefined,
      services.readCache,
    );
    ctx.set('Cache-Control', 'no-store');
    await next();
  });

  router.post(
    '/reports/financial',
    rateLimit('submissions'),
    jsonBody(services.config.bodyLimitBytes, services.config.bodyTimeoutMs),
    async (ctx) => {
      const key = ctx.get('Idempotency-Key');
      const { receipt, replayed } = await submitReportIdempotently(
        services,
        ctx.state.principal,
        ctx.request.headers['idempotency-key'] === undefined ? undefined : key,
        ctx.request.body,
      );
      ctx.status = 202;
      // Long-running operation conventions (Azure's Operation-Location, AIP-151): the report and its task.
      ctx.set('Location', reportPath(receipt.reportId));
      ctx.set('Operation-Location', taskPath(receipt.taskId));
      ctx.set('Retry-After', String(POLL_AFTER_SECONDS));
      if (replayed) ctx.set('Idempotent-Replayed', 'true');
      ctx.body = presentSubmission(receipt);
    },
  );

  router.get('/reports', rateLimit('reads'), async (ctx) => {
    ctx.body = await listReportsPage(services, ctx.state.principal, ctx.query);
  });

  router.get('/reports/:reportId', rateLimit('reads'), conditionalGet(), async (ctx) => {
    const { principal } = ctx.state;
    const reportId = ctx.params.reportId!;
    const cache = services.readCache;
    // Polling a finished report with its ETag: answered from memory (readCache.ts), as conditionalGet would.
    const cached = cache?.reportTag(reportId, principal);
    if (cached && matchesIfNoneMatch(ctx.get('If-None-Match'), cached)) {
      notModified(ctx, cached);
      return;
    }
    const generation = cache?.generation() ?? 0;
    const report = await getReport(services, principal, reportId);
    if (report.status === 'pending') ctx.set('Retry-After', String(POLL_AFTER_SECONDS));
    const body = presentReport(report, services.config.appUrl);
    ctx.body = body;
    if (cache && report.status !== 'pending') {
      ctx.etag = etagOf(body);
      cache.rememberReportTag(reportId, principal, ctx.response.get('ETag'), generation);
    }
  });

  // The report and all that belongs to it (statements, results, task, share link); 404 when not the caller's.
  router.delete('/reports/:reportId', rateLimit('submissions'), async (ctx) => {
    await deleteReport(services, ctx.state.principal, ctx.params.reportId!);
    ctx.status = 204;
  });

  router.get('/tasks/:taskId', rateLimit('reads'), conditionalGet(), async (ctx) => {
    const task = presentTask(await getTask(services, ctx.state.principal, ctx.params.taskId!));
    if (!task.done) ctx.set('Retry-After', String(POLL_AFTER_SECONDS));
    ctx.body = task;
  });

  router.get('/reports/:reportId/analysis', rateLimit('reads'), conditionalGet(), async (ctx) => {
    const { report, items } = await listAnalysis(services, ctx.state.principal, ctx.params.reportId!);
    ctx.body = presentAnalysisList(report.id, items);
  });

  router.get('/reports/:reportId/analysis/:slug', rateLimit('reads'), conditionalGet(), async (ctx) => {
    const { reportId, slug } = ctx.params;
    ctx.body = presentAnalysisItem(await getAnalysisItem(services, ctx.state.principal, reportId!, slug!));
  });

  // AI interpretation on demand (no request body): the whole report, or one item. Same answers as the reads.
  router.post('/reports/:reportId/ai-analysis', rateLimit('ai_regeneration'), async (ctx) => {
    const { report, items } = await generateReportAiAnalysis(
      services,
      ctx.state.principal,
      ctx.params.reportId!,
    );
    ctx.body = presentAnalysisList(report.id, items);
  });

  router.post('/reports/:reportId/analysis/:slug/ai-analysis', rateLimit('ai_regeneration'), async (ctx) => {
    const { reportId, slug } = ctx.params;
    ctx.body = presentAnalysisItem(
      await generateAnalysisItemAi(services, ctx.state.principal, reportId!, slug!),
    );
  });

  router.get('/catalogue', rateLimit('reads'), conditionalGet(), async (ctx) => {
    ctx.set('Cache-Control', 'private, max-age=3600');
    ctx.body = analysisCatalogue();
  });

  router.get('/benchmarks', rateLimit('reads'), async (ctx) => {
    const sets = await listUsableBenchmarkSets(services, ctx.state.principal);
    ctx.body = { sets: sets.map(presentBenchmarkSet) };
  });

  addWebhookRoutes(router, services);
  addImportRoutes(router, services);

  return router;
}
