/**
 * The GraphQL context of one request: who is calling, the services, and the request's loaders.
 */
import { API_KEY_MODES, type ApiKeyMode } from '../db/entities/apiKey.entity.ts';
import { CsrfError, UnauthenticatedError, ValidationError } from '../errors.ts';
import { csrfTokenMatches, readSessionCookie } from '../lib/sessionCookie.ts';
import { authenticateSession, type ConsolePrincipal } from '../services/accounts.ts';
import { authenticateApiKey, type Principal } from '../services/apiKeys.ts';
import type { ServiceContext } from '../services/context.ts';
import { createLoaders, type Loaders } from './loaders.ts';

/** The header that carries the session's CSRF token on every cookie-authenticated request. */
export const CSRF_HEADER = 'x-csrf-token';
/** The mode (test or live) the console works in, like Stripe's toggle; test when absent. */
export const CONSOLE_MODE_HEADER = 'x-console-mode';

export interface GraphQLContext {
  services: ServiceContext;
  principal: Principal;
  /**
   * The signed-in console user, when the request came with the session cookie; null for an API key. The
   * console-only fields (keys, share settings, viewer) need it, so a leaked API key cannot mint new keys.
   */
  session: ConsolePrincipal | null;
  loaders: Loaders;
}

interface Caller {
  principal: Principal;
  session: ConsolePrincipal | null;
}

export function consoleMode(header: string | null | undefined): ApiKeyMode {
  const value = header?.trim().toLowerCase();
  if (!value) return 'test';
  if (!(API_KEY_MODES as readonly string[]).includes(value)) {
    throw new ValidationError(
      [{ path: 'X-Console-Mode', message: 'must be "test" or "live"' }],
      'The X-Console-Mode header must be "test" or "live".',
    );
  }
  return value as ApiKeyMode;
}

/**
 * Who the request is from. The only code that knows how a GraphQL request proves its identity:
 *
 * - an X-API-Key header: REST's rules (same tenancy, same test/live separation; missing, malformed, unknown
 *   and revoked keys are UNAUTHENTICATED). A key wins over a cookie sent alongside it.
 * - otherwise the console's session cookie: the session's account, in the mode of X-Console-Mode. Every
 *   such request, query or mutation, must carry the session's CSRF token in X-CSRF-Token (else 403
 *   CSRF_FAILED): the browser attaches the cookie to any request to this origin, whichever page asks, but
 *   only the console's own pages can read the token (GET /api/v1/console/session) and set a custom header
 *   (another origin cannot without a CORS preflight, which is never granted). One rule for every operation
 *   is simpler to audit than one that inspects the operation type.
 * - neither: UNAUTHENTICATED, as before.
 *
 * Both resolve to the same Principal, so resolvers and services never see how the caller signed in.
 */
async function authenticate(services: ServiceContext, request: Request): Promise<Caller> {
  const em = services.db.orm.em.fork();
  const key = request.headers.get('x-api-key') ?? undefined;
  const token = key?.trim() ? undefined : readSessionCookie(request.headers.get('cookie'));
  if (!token) return { principal: await authenticateApiKey(em, key, services.readCache), session: null };

  const session = await authenticateSession(em, token);
  if (!session) {
    throw new UnauthenticatedError('Your console session has expired or was ended; sign in again.');
  }
  if (!csrfTokenMatches(session.csrfToken, request.headers.get(CSRF_HEADER))) {
    throw new CsrfError(
      'Requests signed in with the console session cookie must send the session’s CSRF token in ' +
        'X-CSRF-Token (GET /api/v1/console/session returns it).',
    );
  }
  const mode = consoleMode(request.headers.get(CONSOLE_MODE_HEADER));
  return {
    principal: { accountId: session.accountId, mode, apiKeyId: null, sessionId: session.sessionId },
    session,
  };
}

/**
 * Builds the context once the operation has parsed and validated, before anything executes: an anonymous
 * caller learns nothing about the data, nor whether a submission would be valid (as with REST).
 */
export async function createContext(services: ServiceContext, request: Request): Promise<GraphQLContext> {
  const { principal, session } = await authenticate(services, request);
  return { services, principal, session, loaders: createLoaders(services, principal) };
}
