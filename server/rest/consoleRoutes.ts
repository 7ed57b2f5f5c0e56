/**
 * The console's sign-in under /api/v1/console: sign up, log in, log out, "who am I" (which hands the
 * page its CSRF token), and changing the signed-in user's password. These are REST rather than GraphQL because they are about a cookie, an HTTP
 * concern: they set and clear it, and answer 429 with Retry-After. Everything else the console does goes
 * through /graphql with the cookie this sets (server/graphql/context.ts). See docs/console.md.
 */
import { Router } from '@koa/router';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context, Next } from 'koa';
import { CsrfError, UnauthenticatedError, ValidationError } from '../errors.ts';
import { clientSubject } from '../lib/rateLimits.ts';
import {
  clearedSessionCookie,
  csrfTokenMatches,
  readSessionCookie,
  sessionCookie,
} from '../lib/sessionCookie.ts';
import {
  authenticateSession,
  type ConsoleSession,
  changePassword,
  logIn,
  logOut,
  SESSION_TTL_MS,
  signUp,
} from '../services/accounts.ts';
import type { ServiceContext } from '../services/context.ts';
import { jsonBody } from './jsonBody.ts';

export const CONSOLE_PREFIX = '/api/v1/console';

/** Sign-up attempts per client address per hour by default (RATE_LIMIT_SIGNUP_PER_HOUR): each may cost an argon2id hash. */
export const SIGN_UP_LIMIT = 20;

/** Small bodies only: an email and a password. */
const BODY_LIMIT_BYTES = 16 * 1024;

/** What the page needs after signing in: who it is, and the token to send in X-CSRF-Token. */
function presentSession(session: { email: string; csrfToken: string }) {
  return { email: session.email, csrf_token: session.csrfToken };
}

/**
 * Sign-in requests must come from this site's own pages. JSON bodies already need a CORS preflight from
 * another origin (never granted), so this is a second line: browsers say where a request comes from in
 * Sec-Fetch-Site and Origin. Only the host is compared, so a TLS-terminating proxy (https outside, http
 * inside) does not trip it; clients that send neither header (curl, scripts) are not browsers and pass.
 */
function requireSameOrigin(ctx: Context, next: Next) {
  const site = ctx.get('Sec-Fetch-Site');
  const origin = ctx.get('Origin');
  let sameHost = true;
  if (origin) {
    try {
      sameHost = new URL(origin).host === ctx.host;
    } catch {
      sameHost = false; // "null" (sandboxed frames, some redirects) or garbage
    }
  }
  if ((site && site !== 'same-origin' && site !== 'none') || !sameHost) {
    throw new CsrfError('Sign-in requests must come from the console’s own pages.');
  }
  return next();
}

function credentials(body: unknown): { email: unknown; password: unknown } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError([{ path: '', message: 'must be an object with email and password' }]);
  }
  const { email, password } = body as Record<string, unknown>;
  return { email, password };
}

export function consoleRoutes(services: ServiceContext): Router {
  const router = new Router({ prefix: CONSOLE_PREFIX });
  const em = (): EntityManager => services.db.orm.em.fork();

  /** Sets the cookie of a new session and answers with its CSRF token (read back through the service). */
  async function startSession(ctx: Context, session: ConsoleSession, status: 200 | 201) {
    const signedIn = await authenticateSession(em(), session.token);
    if (!signedIn) throw new Error('a session just opened cannot be found');
    ctx.append('Set-Cookie', sessionCookie(session.token, { secure: ctx.secure, maxAgeMs: SESSION_TTL_MS }));
    ctx.status = status;
    ctx.body = presentSession(signedIn);
  }

  router.use(async (ctx, next) => {
    // Session answers hold the CSRF token: no cache may keep them.
    ctx.set('Cache-Control', 'no-store');
    await next();
  });

  router.post(
    '/signup',
    requireSameOrigin,
    jsonBody(BODY_LIMIT_BYTES, services.config.bodyTimeoutMs),
    async (ctx) => {
      await ctx.rateLimits.take('signup', clientSubject(ctx.ip), 'sign-up attempts from this address');
      const session = await signUp(em(), credentials(ctx.request.body));
      await startSession(ctx, session, 201);
    },
  );

  router.post(
    '/login',
    requireSameOrigin,
    jsonBody(BODY_LIMIT_BYTES, services.config.bodyTimeoutMs),
    async (ctx) => {
      // logIn throttles failed attempts per email and per address (429 with Retry-After).
      const session = await logIn(em(), credentials(ctx.request.body), clientSubject(ctx.ip), ctx.rateLimits);
      await startSession(ctx, session, 200);
    },
  );

  router.post('/logout', requireSameOrigin, async (ctx) => {
    const token = readSessionCookie(ctx.get('Cookie'));
    if (token) {
      const manager = em();
      const session = await authenticateSession(manager, token);
      // Only a live session is worth protecting: without the token another site could sign the user out.
      if (session && !csrfTokenMatches(session.csrfToken, ctx.get('X-CSRF-Token'))) {
        throw new CsrfError('Send the session’s CSRF token in X-CSRF-Token to sign out.');
      }
      await logOut(manager, token);
    }
    ctx.append('Set-Cookie', clearedSessionCookie({ secure: ctx.secure }));
    ctx.status = 204;
  });

  router.get('/session', async (ctx) => {
    const token = readSessionCookie(ctx.get('Cookie'));
    const session = token ? await authenticateSession(em(), token) : null;
    if (!session) {
      // A cookie that names no live session is dropped, so the browser stops sending it.
      if (token) ctx.append('Set-Cookie', clearedSessionCookie({ secure: ctx.secure }));
      throw new UnauthenticatedError('Not signed in to the console (or the session has expired).');
    }
    ctx.body = presentSession(session);
  });

  router.post('/password', requireSameOrigin, jsonBody(BODY_LIMIT_BYTES), async (ctx) => {
    // A signed-in user changes their own password: the session and its CSRF token, then the current
    // password (accounts.changePassword verifies it and throttles wrong ones). Every session ends; the caller
    // gets a new one (cookie and CSRF token) and the list of active keys made under the old password.
    const token = readSessionCookie(ctx.get('Cookie'));
    const manager = em();
    const session = token ? await authenticateSession(manager, token) : null;
    if (!session)
      throw new UnauthenticatedError('Not signed in to the console (or the session has expired).');
    if (!csrfTokenMatches(session.csrfToken, ctx.get('X-CSRF-Token'))) {
      throw new CsrfError('Send the session’s CSRF token in X-CSRF-Token to change the password.');
    }
    const body = ctx.request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new ValidationError([
        { path: '', message: 'must be an object with current_password and new_password' },
      ]);
    }
    const { current_password: currentPassword, new_password: newPassword } = body as Record<string, unknown>;
    const changed = await changePassword(manager, session, { currentPassword, newPassword }, ctx.rateLimits);
    // Every session ended, this one too: the new one's cookie and CSRF token, and the keys to review.
    ctx.append(
      'Set-Cookie',
      sessionCookie(changed.session.token, { secure: ctx.secure, maxAgeMs: SESSION_TTL_MS }),
    );
    ctx.status = 200;
    ctx.body = {
      ...presentSession({ email: session.email, csrfToken: changed.session.csrfToken }),
      recent_keys: changed.recentKeys.map((key) => ({
        id: key.id,
        name: key.name,
        mode: key.mode,
        prefix: key.prefix,
        last_four: key.lastFour,
        created_at: key.createdAt.toISOString(),
      })),
    };
  });

  return router;
}
