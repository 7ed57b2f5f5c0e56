/** Headers every response carries: `X-Content-Type-Options: nosniff` (a JSON answer is never run as a script). */
import type { Context, Next } from 'koa';

export async function securityHeaders(ctx: Context, next: Next): Promise<void> {
  ctx.set('X-Content-Type-Options', 'nosniff');
  await next();
}
