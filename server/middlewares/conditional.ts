/**
 * Conditional reads: a weak ETag (a hash of the JSON representation) on a successful GET or HEAD, and 304 Not
 * Modified when If-None-Match names it. Weak because the bytes on the wire differ by Content-Encoding while
 * the representation is the same. The response is still computed (the hash needs it): a 304 saves the
 * client's bandwidth and parsing, not the server's read. Mounted per route on the reads that have a stable
 * representation: report, task, analysis (list and item), catalogue.
 */
import { hash } from 'node:crypto';
import type { Context, Next } from 'koa';

export function etagOf(body: unknown): string {
  const text = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  return `W/"${hash('sha256', text, 'base64url').slice(0, 27)}"`;
}

/** RFC 9110 §13.1.2: `*`, or any listed tag equal to ours under weak comparison (W/ ignored). */
export function matchesIfNoneMatch(header: string, etag: string): boolean {
  if (!header || !etag) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => opaque(tag) === opaque(etag));
}

export function conditionalGet() {
  return async function conditional(ctx: Context, next: Next): Promise<void> {
    await next();
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.status !== 200 || ctx.body == null) return;
    // A handler that already tagged its body (from the same etagOf) is not hashed twice.
    if (!ctx.response.get('ETag')) ctx.etag = etagOf(ctx.body);
    privateCacheControl(ctx);
    // Compared here rather than with ctx.fresh: `fresh` ignores If-None-Match when the request says
    // Cache-Control: no-cache, which fetch() adds to every request carrying If-None-Match (WHATWG Fetch).
    const etag = ctx.response.get('ETag');
    if (matchesIfNoneMatch(ctx.get('If-None-Match'), etag)) notModified(ctx, etag);
  };
}

/** The caller's own data: a client (not a shared cache) may keep it, and revalidates with If-None-Match. */
function privateCacheControl(ctx: Context): void {
  const current = ctx.response.get('Cache-Control');
  ctx.set('Cache-Control', current === 'no-store' ? 'private, no-cache' : current);
}

/** The 304 conditionalGet answers, for a handler that knows the current tag without building the body. */
export function notModified(ctx: Context, etag: string): void {
  ctx.etag = etag;
  privateCacheControl(ctx);
  ctx.status = 304;
  ctx.body = null;
}
