/**
 * REST of the import: POST /imports (multipart → { submission, mapping }, or with ?submit=true the usual 202
 * with the mapping beside it) and GET /templates/{standard}.xlsx. Mounted on the developer router, after its
 * API-key authentication.
 */
import { Router } from '@koa/router';
import type { Context } from 'koa';
import { ACCOUNTING_STANDARDS, type AccountingStandard } from '../../worker/types.ts';
import { NotFoundError, ValidationError } from '../errors.ts';
import { rateLimit } from '../middlewares/rateLimit.ts';
import { presentSubmission, reportPath, taskPath } from '../presenters/reportPresenter.ts';
import { POLL_AFTER_SECONDS } from '../rest/developerRoutes.ts';
import type { Principal } from '../services/apiKeys.ts';
import type { ServiceContext } from '../services/context.ts';
import { importReport, parseOverrides } from './importService.ts';
import { readMultipart } from './multipart.ts';
import { buildTemplate } from './template.ts';

function submitFlag(value: unknown): boolean {
  if (value === undefined || value === '' || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1') return true;
  throw new ValidationError([{ path: 'submit', message: 'must be true or false' }]);
}

export function addImportRoutes(router: Router<{ principal: Principal }>, services: ServiceContext): void {
  router.post('/imports', rateLimit('submissions'), async (ctx) => {
    const submit = submitFlag(ctx.query.submit);
    const upload = await readMultipart(ctx, services.config.bodyTimeoutMs);
    const overrides = parseOverrides(upload.fields);
    const key = ctx.request.headers['idempotency-key'] === undefined ? undefined : ctx.get('Idempotency-Key');
    const outcome = await importReport(
      services,
      ctx.state.principal,
      upload.files,
      overrides,
      submit ? { idempotencyKey: key } : null,
    );
    if (!outcome.submitted) {
      ctx.body = { submission: outcome.submission, mapping: outcome.mapping };
      return;
    }
    const { receipt, replayed } = outcome.submitted;
    ctx.status = 202;
    ctx.set('Location', reportPath(receipt.reportId));
    ctx.set('Operation-Location', taskPath(receipt.taskId));
    ctx.set('Retry-After', String(POLL_AFTER_SECONDS));
    if (replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.body = { ...presentSubmission(receipt), mapping: outcome.mapping };
  });

  router.get('/templates/:file', rateLimit('reads'), sendTemplate);
}

async function sendTemplate(ctx: Context): Promise<void> {
  const match = /^([a-z_]+)\.xlsx$/.exec(ctx.params.file ?? '');
  const standard = match?.[1];
  if (!standard || !(ACCOUNTING_STANDARDS as readonly string[]).includes(standard))
    throw new NotFoundError('template', ctx.params.file ?? '');
  ctx.set('Cache-Control', 'public, max-age=3600');
  ctx.set('Content-Disposition', `attachment; filename="${standard}.xlsx"`);
  ctx.type = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
  ctx.body = await buildTemplate(standard as AccountingStandard);
}

/**
 * The same templates without an API key at /templates/{standard}.xlsx, for the console's import page and the
 * README: they are the official forms, no account data.
 */
export function publicTemplateRoutes(): Router {
  const router = new Router();
  router.get('/templates/:file', sendTemplate);
  return router;
}
