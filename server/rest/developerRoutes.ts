/**
 * The spec's five endpoints under /api/v1/developer, the catalogue and AI analysis on demand. Each handler calls
 * one service and one presenter.
 */
import { Router } from '@koa/router';
import type { Context, Next } from 'koa';
import { analysisCatalogue } from '../../worker/catalogue/analysisCatalogue.ts';
import { rateLimit } from '../middlewares/rateLimit.ts';
import {
  presentAnalysisItem,
  presentAnalysisList,
  presentReport,
  presentSubmission,
  presentTask,
} from '../presenters/reportPresenter.ts';
import { generateAnalysisItemAi, generateReportAiAnalysis } from '../services/aiAnalysis.ts';
import { authenticateApiKey, type Principal } from '../services/apiKeys.ts';
import type { ServiceContext } from '../services/context.ts';
import { deleteReport } from '../services/reportDeletion.ts';
import { getAnalysisItem, getReport, getTask, listAnalysis, submitReport } from '../services/reports.ts';
import { jsonBody } from './jsonBody.ts';

interface State {
  principal: Principal;
}

export function developerRoutes(services: ServiceContext): Router<State> {
  const router = new Router<State>({ prefix: '/api/v1/developer' });

  // Authentication comes first: an anonymous caller learns nothing, not even whether a body is valid.
  router.use(async (ctx: Context, next: Next) => {
    ctx.state.principal = await authenticateApiKey(
      services.db.orm.em.fork(),
      ctx.get('X-API-Key') || undefined,
    );
    ctx.set('Cache-Control', 'no-store');
    await next();
  });

  router.post(
    '/reports/financial',
    rateLimit('submissions'),
    jsonBody(services.config.bodyLimitBytes, services.config.bodyTimeoutMs),
    async (ctx) => {
      const receipt = await submitReport(services, ctx.state.principal, ctx.request.body);
      ctx.status = 202;
      ctx.set('Location', `/api/v1/developer/reports/${receipt.reportId}`);
      ctx.body = presentSubmission(receipt);
    },
  );

  router.get('/reports/:reportId', rateLimit('reads'), async (ctx) => {
    const report = await getReport(services, ctx.state.principal, ctx.params.reportId!);
    ctx.body = presentReport(report, services.config.appUrl);
  });

  // The report and all that belongs to it (statements, results, task, share link); 404 when not the caller's.
  router.delete('/reports/:reportId', rateLimit('submissions'), async (ctx) => {
    await deleteReport(services, ctx.state.principal, ctx.params.reportId!);
    ctx.status = 204;
  });

  router.get('/tasks/:taskId', rateLimit('reads'), async (ctx) => {
    ctx.body = presentTask(await getTask(services, ctx.state.principal, ctx.params.taskId!));
  });

  router.get('/reports/:reportId/analysis', rateLimit('reads'), async (ctx) => {
    const { report, items } = await listAnalysis(services, ctx.state.principal, ctx.params.reportId!);
    ctx.body = presentAnalysisList(report.id, items);
  });

  router.get('/reports/:reportId/analysis/:slug', rateLimit('reads'), async (ctx) => {
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

  router.get('/catalogue', rateLimit('reads'), async (ctx) => {
    ctx.set('Cache-Control', 'private, max-age=3600');
    ctx.body = analysisCatalogue();
  });

  return router;
}
