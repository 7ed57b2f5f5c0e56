/**
 * The console's session cookie: its name, how it is written and read. One module, so the REST sign-in
 * routes (which set it) and GraphQL's authenticate (which reads it) cannot disagree on its name or flags.
 *
 * The header is written by hand rather than with Koa's `ctx.cookies`: that library writes `Expires` only,
 * and we want `Max-Age` (relative, immune to a wrong client clock) spelled out.
 */
import { timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'fra_session';

/** Session tokens are 43 base64url characters; anything else in the cookie names no session. */
const TOKEN = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * - HttpOnly: page scripts never see the token (an XSS cannot carry the session away).
 * - SameSite=Strict: never sent on a cross-site request, not even a top-level navigation. The console is a
 *   SPA whose HTML does not depend on the session (the server sends the same index.html to everyone) and
 *   whose every authenticated call is a same-origin fetch, so Strict withholds the cookie from no request
 *   the console makes, while Lax would still send it on cross-site GET navigations.
 * - Secure when the request came over HTTPS (directly, or via a proxy trusted by TRUST_PROXY), so plain
 *   http://localhost development still works.
 * - Path=/: /graphql and /api/v1/console both need it. No Domain: the host that set it, only.
 */
function attributes(secure: boolean, maxAgeSeconds: number): string {
  return `Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export function sessionCookie(token: string, options: { secure: boolean; maxAgeMs: number }): string {
  return `${SESSION_COOKIE}=${token}; ${attributes(options.secure, Math.floor(options.maxAgeMs / 1000))}`;
}

/** Tells the browser to drop the cookie (sign-out, or a cookie that names no live session). */
export function clearedSessionCookie(options: { secure: boolean }): string {
  return `${SESSION_COOKIE}=; ${attributes(options.secure, 0)}`;
}

/** The session token in a Cookie request header, if there is a well-formed one. */
export function readSessionCookie(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index < 0 || part.slice(0, index).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(index + 1).trim();
    return TOKEN.test(value) ? value : undefined;
  }
  return undefined;
}

/**
 * Whether a request's X-CSRF-Token is its session's token. Constant-time, so the token cannot be guessed a
 * character at a time from response times.
 */
export function csrfTokenMatches(expected: string, given: string | null | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
