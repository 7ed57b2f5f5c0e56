/**
 * Names every request: the caller's X-Request-Id when it is a safe token (letters, digits and `._:-`, 1 to
 * 128 characters — it is echoed in a header and written to the logs), else a new UUID. Echoed on the
 * response and kept in `ctx.state.requestId` (problem bodies and the access log read it).
 */
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';

export const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function requestId(ctx: Context, next: Next): Promise<void> {
  const id = requestIdFor(ctx.get('X-Request-Id'));
  ctx.state.requestId = id;
  ctx.set('X-Request-Id', id);
  await next();
}

/** The request id of a request offering `offered` (its X-Request-Id, '' when none): that, when safe to echo and log, else a new UUID. */
export function requestIdFor(offered: string): string {
  return SAFE_REQUEST_ID.test(offered) ? offered : randomUUID();
}
