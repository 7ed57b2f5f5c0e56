/**
 * A request answered before its body was read (401 before authentication passed, 413, 415, 408, …) closes
 * its connection (`Connection: close`): otherwise the socket would stay open while the client keeps sending
 * a body nobody reads, and the next request on it would start in the middle of that body.
 */
import type { Context, Next } from 'koa';

export async function closeUnreadBody(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
  } finally {
    const { req } = ctx;
    const hasBody =
      Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (hasBody && !req.complete) ctx.set('Connection', 'close');
  }
}
