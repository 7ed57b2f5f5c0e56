/**
 * HTTP request duration by route template, method and status (the histogram in server/observability/metrics.ts).
 * The route label is a template (`/api/v1/developer/reports/:reportId`), never a path, so callers cannot grow
 * the number of series.
 */
import type { Context, Next } from 'koa';
import { onResponseClosed } from '../lib/responseClosed.ts';
import { httpRequestDuration } from '../observability/metrics.ts';

/** Paths answered outside @koa/router that are their own route. */
const FIXED_ROUTES = new Set([
  '/graphql',
  '/healthz',
  '/readyz',
  '/metrics',
  '/docs',
  '/api/v1/openapi.json',
]);

/** The route a request matched, as a template; `web` for the web app's pages and assets, `unmatched` for 404s. */
export function routeTemplate(ctx: Context): string {
  const matched = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
  if (typeof matched === 'string') return matched;
  if (FIXED_ROUTES.has(ctx.path)) return ctx.path;
  if (ctx.status === 404) return 'unmatched';
  return 'web';
}

/** The status line Node wrote (or will write): what the client got, not what a handler last set. */
export function sentStatus(ctx: Context): number {
  return ctx.res.headersSent ? ctx.res.statusCode : ctx.status;
}

export function metricsMiddleware() {
  return async function measure(ctx: Context, next: Next): Promise<void> {
    const end = httpRequestDuration.startTimer();
    // Observed when the response is over, with the status actually sent (see accessLog).
    onResponseClosed(ctx.res, () => {
      end({ method: ctx.method, route: routeTemplate(ctx), status: String(sentStatus(ctx)) });
    });
    await next();
  };
}
