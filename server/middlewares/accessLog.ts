/**
 * The access log: one JSON line per request at `info`, when the response is done (the status as sent) — request id, method, route
 * template, path, status, duration, response size and the API key's public prefix (`ek_live_ab12`, what the
 * console shows). Never the whole key, the query string, a cookie or a body.
 *
 * Written by hand rather than with pino-http: the fields wanted here (route template, key prefix) are known only
 * to Koa after routing, and pino-http's own request/response serialisers would log headers this log must not.
 */
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { routeTemplate, sentStatus } from './metrics.ts';

const KEY_PREFIX = /^(ek_(?:test|live)_[A-Za-z0-9_-]{4})/;

/** The public prefix of an API key as sent; `malformed` for anything that does not look like a key. */
export function keyPrefix(header: string | undefined): string | null {
  const value = header?.trim();
  if (!value) return null;
  return KEY_PREFIX.exec(value)?.[1] ?? 'malformed';
}

export function accessLog(logger: Logger) {
  const log = logger.child({ log: 'access' });
  return async function access(ctx: Context, next: Next): Promise<void> {
    const started = performance.now();
    // Logged when the response is over, with the status Node actually sent: an error thrown outside the
    // problem mapping (Koa's own 500) or a stream that fails after the headers would otherwise be logged
    // with the status the handler had set.
    ctx.res.once('close', () => {
      log.info(
        {
          requestId: ctx.response.get('X-Request-Id') || undefined,
          method: ctx.method,
          route: routeTemplate(ctx),
          path: ctx.path,
          status: sentStatus(ctx),
          ms: Math.round((performance.now() - started) * 10) / 10,
          bytes: ctx.response.length ?? null,
          key: keyPrefix(ctx.get('X-API-Key') || undefined),
        },
        'request',
      );
    });
    await next();
  };
}
