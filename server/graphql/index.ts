/**
 * The GraphQL API at /graphql: graphql-yoga serving the Pothos schema, on the same services and presenters
 * as REST. Koa hands the raw request to Yoga (no Koa body parser runs on this path, so the body is read
 * once, by Yoga, within the configured size limit) and copies Yoga's response back onto the Koa context,
 * so the request log and X-Request-Id see it like any other response.
 */
import { createYoga } from 'graphql-yoga';
import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { readSessionCookie } from '../lib/sessionCookie.ts';
import { spendBudget } from '../middlewares/rateLimit.ts';
import { authenticateSession } from '../services/accounts.ts';
import { authenticateApiKey, type Principal } from '../services/apiKeys.ts';
import type { ServiceContext } from '../services/context.ts';
import { cleanTextPlugin } from './cleanText.ts';
import { consoleMode, createContext, type GraphQLContext } from './context.ts';
import { createMaskError } from './errors.ts';
import { queryLimitPlugins } from './limits.ts';
import { readCostPlugin } from './readCost.ts';
import { schema } from './schema.ts';

export const GRAPHQL_PATH = '/graphql';

/**
 * Yoga's own log lines, into the service's logger. Its error lines only repeat errors maskError has already
 * mapped (domain errors are not faults) or logged (unexpected ones), so they go to debug.
 */
function yogaLogger(logger: Logger) {
  const child = logger.child({ component: 'graphql' });
  return {
    debug: (...args: unknown[]) => child.debug({ detail: args }, 'yoga'),
    info: (...args: unknown[]) => child.info({ detail: args }, 'yoga'),
    warn: (...args: unknown[]) => child.warn({ detail: args }, 'yoga'),
    error: (...args: unknown[]) => child.debug({ detail: args }, 'yoga: error replaced by maskError'),
  };
}

export function createGraphQLServer(services: ServiceContext) {
  return createYoga<{ koa?: Context }, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    context: ({ request }) => createContext(services, request),
    maskedErrors: { maskError: createMaskError(services.logger) },
    logging: yogaLogger(services.logger),
    maxRequestBodySize: services.config.bodyLimitBytes,
    // Same-origin only, like REST: no CORS headers. The console's CSRF defence depends on it: another origin
    // can neither read the session's CSRF token nor send X-CSRF-Token without a preflight, never granted.
    cors: false,
    // File uploads (GraphQL multipart request spec) for importStatements only; the body limit bounds them, and
    // a cookie request still needs X-CSRF-Token (a cross-site form cannot set it), an API-key one X-API-Key.
    multipart: true,
    landingPage: false,
    // Yoga's GraphiQL loads its scripts from a CDN; the service makes no request to the internet, so point a
    // local GraphQL client (or the committed schema/schema.graphql) at /graphql instead.
    graphiql: false,
    plugins: [...queryLimitPlugins(), cleanTextPlugin, readCostPlugin],
  });
}

export function graphqlMiddleware(services: ServiceContext): Middleware {
  const yoga = createGraphQLServer(services);
  return async (ctx, next) => {
    if (ctx.path !== GRAPHQL_PATH) return next();
    // Every GraphQL request of a key or a console session spends one `reads` point here, before Yoga reads the
    // body (the rest of its cost once validated: readCost.ts; submissions and AI regeneration are charged
    // again by their mutations). A bad key or session is left to the context's authentication to refuse.
    const principal = await budgetPrincipal(services, ctx);
    if (principal) await spendBudget(ctx.rateLimits, 'reads', principal, { headers: ctx });
    const response = await yoga.handleNodeRequestAndResponse(ctx.req, ctx.res, { koa: ctx });
    ctx.status = response.status;
    response.headers.forEach((value, name) => {
      ctx.set(name, value);
    });
    // Responses carry the caller's data: never stored by a shared cache (as REST's Cache-Control).
    ctx.set('Cache-Control', 'no-store');
    const body = Buffer.from(await response.arrayBuffer());
    const refusal = REFUSALS[response.status];
    if (refusal && body.length === 0) {
      // Yoga answers an unacceptable Accept (406) or Content-Type (415) with no body; GraphQL over HTTP wants a
      // GraphQL response saying why. application/json: the one type every GraphQL client reads.
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = { errors: [{ message: refusal.message, extensions: { code: refusal.code } }] };
      return;
    }
    ctx.body = response.status === 400 ? withoutOriginalErrors(body) : body;
  };
}

/** Whose `reads` a request spends: its key's, or its console session's (account and mode); null when neither. */
async function budgetPrincipal(services: ServiceContext, ctx: Context): Promise<Principal | null> {
  const em = services.db.orm.em.fork();
  const key = ctx.get('X-API-Key').trim();
  if (key) return authenticateApiKey(em, key, services.readCache).catch(() => null);
  const session = await authenticateSession(em, readSessionCookie(ctx.get('Cookie')));
  if (!session) return null;
  let mode: Principal['mode'] = 'test';
  try {
    mode = consoleMode(ctx.get('X-Console-Mode'));
  } catch {
    // An invalid mode is refused by the context (422); it is counted against test meanwhile.
  }
  return { accountId: session.accountId, mode, apiKeyId: null };
}

const REFUSALS: Record<number, { code: string; message: string }> = {
  406: {
    code: 'NOT_ACCEPTABLE',
    message:
      'Accept names no type this endpoint answers with: send Accept: application/graphql-response+json or application/json.',
  },
  415: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'Send the request body as Content-Type: application/json (or use GET with query parameters).',
  },
};

/** Yoga's 400s copy the parser's error into `extensions.originalError`: the message says enough. */
function withoutOriginalErrors(body: Buffer): Buffer {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as {
      errors?: Array<{ extensions?: Record<string, unknown> }>;
    };
    if (!Array.isArray(parsed.errors)) return body;
    for (const error of parsed.errors) delete error.extensions?.originalError;
    return Buffer.from(JSON.stringify(parsed));
  } catch {
    return body;
  }
}
