/**
 * The poll of a finished report answered 304 ahead of Koa: `GET /api/v1/developer/reports/{id}` with an
 * `If-None-Match` naming the report's current tag, by a key this process verified, while the caller's rate-limit
 * lease still holds a point — everything known in memory (readCache.ts, rateLimits.ts). The answer is the one the
 * route gives (test/integration/read-cache.test.ts compares them header by header): the same 304, headers,
 * rate-limit spending, access-log line and metrics (route template included). Anything else — another path or
 * method, a body, an unknown or revoked key, a tag not kept or not matching, a lease to take, a spent budget —
 * goes on to Koa untouched: nothing is spent here unless this answers.
 *
 * Polling clients make most of a service's requests. This runs on Node's request itself, before Koa builds its
 * context and runs its middleware chain: on a VM where one system call is dear, Koa and the layers above the
 * routers were half of a 304's CPU (docs/performance.md#polling). The headers the outer layers set (request id,
 * nosniff) are set here in the same order; what only a routed request needs (compression, problem bodies,
 * tracing's Koa spans — the HTTP server span remains) is not.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Koa from 'koa';
import type { RateLimits } from '../lib/rateLimits.ts';
import { onResponseClosed } from '../lib/responseClosed.ts';
import { httpRequestDuration } from '../observability/metrics.ts';
import { cachedPrincipal } from '../services/apiKeys.ts';
import type { ServiceContext } from '../services/context.ts';
import { type AccessLine, accessMs, keyPrefix } from './accessLog.ts';
import { hasRequestBody } from './closeUnreadBody.ts';
import { matchesIfNoneMatch } from './conditional.ts';
import { budgetSpender, setRateLimitHeaders } from './rateLimit.ts';
import { requestIdFor } from './requestId.ts';

/** The route this answers for, as @koa/router names it (the metrics' and access log's route label). */
export const REPORT_ROUTE = '/api/v1/developer/reports/:reportId';
/** Only the plain form of the path (a report id is a UUID), as Koa's `ctx.path` gives it; any other spelling goes to Koa. */
const REPORT_PATH = /^\/api\/v1\/developer\/reports\/([0-9a-fA-F-]{36})$/;

type RequestHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

/**
 * `app` with its request handler (`app.callback()`, which `listen` uses too) answering such polls itself and
 * handing every other request to Koa. Without a read cache, `app` is left as it is.
 */
export function answerPollsAhead(
  app: Koa,
  services: Pick<ServiceContext, 'readCache'>,
  rateLimits: RateLimits,
  accessLine: (line: AccessLine) => void,
): void {
  const answer = notModifiedFromMemory(services, rateLimits, accessLine);
  if (!answer) return;
  const koaCallback = app.callback.bind(app);
  app.callback = () => {
    const koa = koaCallback();
    const handler: RequestHandler = (req, res) => (answer(req, res) ? undefined : koa(req, res));
    return handler as ReturnType<Koa['callback']>;
  };
}

function notModifiedFromMemory(
  services: Pick<ServiceContext, 'readCache'>,
  rateLimits: RateLimits,
  accessLine: (line: AccessLine) => void,
): ((req: IncomingMessage, res: ServerResponse) => boolean) | null {
  const cache = services.readCache;
  if (!cache) return null;
  return function answer(req, res) {
    if (req.method !== 'GET') return false;
    const ifNoneMatch = req.headers['if-none-match'];
    if (!ifNoneMatch) return false;
    // A body sent with the GET: the routers' path reads (or closes) it (closeUnreadBody.ts).
    if (hasRequestBody(req)) return false;
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    const id = REPORT_PATH.exec(path)?.[1];
    if (id === undefined) return false;
    const keyHeader = header(req, 'x-api-key');
    const principal = cachedPrincipal(cache, keyHeader);
    if (!principal) return false;
    const tag = cache.reportTag(id, principal);
    if (tag === undefined || !matchesIfNoneMatch(ifNoneMatch, tag)) return false;
    const budget = rateLimits.spendLeased('reads', budgetSpender(principal));
    if (!budget) return false;

    // From here on this answers, with the headers in the order the routed path sets them: the access log and
    // metrics are observed when the response is over, as accessLog.ts and metrics.ts do.
    const started = performance.now();
    const endTimer = httpRequestDuration.startTimer();
    const requestId = requestIdFor(header(req, 'x-request-id') ?? '');
    onResponseClosed(res, () => {
      const status = res.statusCode;
      accessLine({
        requestId,
        method: 'GET',
        route: REPORT_ROUTE,
        path,
        status,
        ms: accessMs(started),
        bytes: null,
        key: keyPrefix(keyHeader),
      });
      endTimer({ method: 'GET', route: REPORT_ROUTE, status: String(status) });
    });
    res.statusCode = 304;
    res.setHeader('X-Request-Id', requestId);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Vary', 'Accept-Encoding');
    res.setHeader('Cache-Control', 'private, no-cache');
    setRateLimitHeaders({ set: (name, value) => res.setHeader(name, value) }, budget);
    res.setHeader('ETag', tag);
    // Ended after every other 'request' listener has run, as Koa's answer is: one of them may still set a
    // header (runtime.ts: Connection: close while shutting down).
    queueMicrotask(() => res.end());
    return true;
  };
}

/** A request header as Koa's `ctx.get` reads it: a repeated header joined, an absent one undefined. */
function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value || undefined;
}
