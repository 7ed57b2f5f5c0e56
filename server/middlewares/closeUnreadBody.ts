/**
 * A request answered before its body was read (401 before authentication passed, 413, 415, 408, …) closes
 * its connection (`Connection: close`): otherwise the socket would stay open while the client keeps sending
 * a body nobody reads, and the next request on it would start in the middle of that body.
 */
import type { IncomingMessage } from 'node:http';
import type { Context, Next } from 'koa';

/** Whether the request says it carries a body (a length above 0, or chunks). */
export function hasRequestBody(req: IncomingMessage): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}

export async function closeUnreadBody(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
  } finally {
    if (hasRequestBody(ctx.req) && !ctx.req.complete) ctx.set('Connection', 'close');
  }
}
