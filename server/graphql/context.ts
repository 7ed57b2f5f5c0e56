/**
 * The GraphQL context of one request: who is calling, the services, and the request's loaders.
 */
import { authenticateApiKey, type Principal } from '../services/apiKeys.ts';
import type { ServiceContext } from '../services/context.ts';
import { createLoaders, type Loaders } from './loaders.ts';

export interface GraphQLContext {
  services: ServiceContext;
  principal: Principal;
  loaders: Loaders;
}

/**
 * Who the request is from. The only code that knows how a GraphQL request proves its identity: today the
 * X-API-Key header, with REST's rules (same tenancy, same test/live separation; missing, malformed, unknown
 * and revoked keys are UNAUTHENTICATED). The console's session cookie (a later issue) becomes a second way
 * in here — services/accounts.ts `authenticateSession` for the cookie, plus the mode the console works in,
 * and the session's CSRF token checked on mutations, since a cookie is sent without the page asking —
 * resolving to the same Principal, so resolvers and services never see how the caller signed in.
 */
async function authenticate(services: ServiceContext, request: Request): Promise<Principal> {
  return authenticateApiKey(services.db.orm.em.fork(), request.headers.get('x-api-key') ?? undefined);
}

/**
 * Builds the context once the operation has parsed and validated, before anything executes: an anonymous
 * caller learns nothing about the data, nor whether a submission would be valid (as with REST).
 */
export async function createContext(services: ServiceContext, request: Request): Promise<GraphQLContext> {
  const principal = await authenticate(services, request);
  return { services, principal, loaders: createLoaders(services, principal) };
}
