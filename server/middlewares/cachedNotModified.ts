/**
 * The poll of a finished report answered 304 ahead of the routers: `GET /api/v1/developer/reports/{id}` with an
 * `If-None-Match` naming the report's current tag, by a key this process verified, while the caller's rate-limit
 * lease still holds a point — everything known in memory (readCache.ts, rateLimits.ts). The answer is the one the
 * route gives (test/integration/read-cache.test.ts compares them header by header): the same 304, headers,
 * rate-limit spending, access-log line and metrics (route template included). Anything else — another path or
 * method, a body, an unknown or revoked key, a tag not kept or not matching, a lease to take, a spent budget —
 * goes on to the routers untouched: nothing is spent here unless this answers. Polling clients make most of a
 * service's requests; skipping the compression, problem and router layers for them is the point (docs/performance.md#polling).
 */
import type { Context, Next } from 'koa';
import { cachedPrincipal } from '../services/apiKeys.ts';
import type { ServiceContext } from '../services/context.ts';
import { hasRequestBody } from './closeUnreadBody.ts';
import { matchesIfNoneMatch, notModified } from './conditional.ts';
import { budgetSpender, setRateLimitHeaders } from './rateLimit.ts';

/** The route this answers for, as @koa/router names it (the metrics' and access log's route label). */
export const REPORT_ROUTE = '/api/v1/developer/reports/:reportId';
/** Only the plain form of the path (a report id is a UUID); any other spelling the router accepts goes to it. */
const REPORT_PATH = /^\/api\/v1\/developer\/reports\/([0-9a-fA-F-]{36})$/;

export function cachedNotModified(services: Pick<ServiceContext, 'readCache'>) {
  const cache = services.readCache;
  return function notModifiedFromMemory(ctx: Context, next: Next): Promise<void> {
    if (!cache || ctx.method !== 'GET') return next();
    const ifNoneMatch = ctx.get('If-None-Match');
    if (!ifNoneMatch) return next();
    // A body sent with the GET: the routers' path reads (or closes) it (closeUnreadBody.ts).
    if (hasRequestBody(ctx.req)) return next();
    const id = REPORT_PATH.exec(ctx.path)?.[1];
    if (id === undefined) return next();
    const principal = cachedPrincipal(cache, ctx.get('X-API-Key') || undefined);
    if (!principal) return next();
    const tag = cache.reportTag(id, principal);
    if (tag === undefined || !matchesIfNoneMatch(ifNoneMatch, tag)) return next();
    const budget = ctx.rateLimits.spendLeased('reads', budgetSpender(principal));
    if (!budget) return next();
    // From here on this answers, in the order the routers' path sets the same headers.
    (ctx as Context & { _matchedRoute?: string })._matchedRoute = REPORT_ROUTE;
    ctx.state.principal = principal;
    ctx.vary('Accept-Encoding');
    ctx.set('Cache-Control', 'no-store');
    setRateLimitHeaders(ctx, budget);
    notModified(ctx, tag);
    return Promise.resolve();
  };
}
