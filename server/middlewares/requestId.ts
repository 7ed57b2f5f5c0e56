/**
 * Names every request: the caller's X-Request-Id when it is a safe token (letters, digits and `._:-`, 1 to
 * 128 characters — it is echoed in a header and written to the logs), else a new UUID. Echoed on the
 * response, and logged with the outcome at debug level.
 */
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';

export const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestId(logger: Logger) {
  return async function nameRequest(ctx: Context, next: Next): Promise<void> {
    const started = performance.now();
    const offered = ctx.get('X-Request-Id');
    const id = SAFE_REQUEST_ID.test(offered) ? offered : randomUUID();
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    try {
      await next();
    } finally {
      logger.debug(
        {
          requestId: id,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          ms: Math.round(performance.now() - started),
        },
        'request',
      );
    }
  };
}
