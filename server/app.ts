/**
 * Builds the Koa application without listening: main.ts listens, tests drive it over a real socket.
 */
import Koa from 'koa';
import { RouteNotFoundError } from './errors.ts';
import { graphqlMiddleware } from './graphql/index.ts';
import { publicTemplateRoutes } from './import/importRoutes.ts';
import { rateLimitsOf } from './lib/rateLimits.ts';
import { accessLog } from './middlewares/accessLog.ts';
import { answerPollsAhead } from './middlewares/cachedNotModified.ts';
import { closeUnreadBody } from './middlewares/closeUnreadBody.ts';
import { compression } from './middlewares/compress.ts';
import { metricsMiddleware } from './middlewares/metrics.ts';
import { requestId } from './middlewares/requestId.ts';
import { securityHeaders } from './middlewares/securityHeaders.ts';
import { consoleRoutes } from './rest/consoleRoutes.ts';
import { developerRoutes } from './rest/developerRoutes.ts';
import { docsRoutes } from './rest/docsRoutes.ts';
import { opsRoutes, type ShutdownProbe } from './rest/opsRoutes.ts';
import { problemMiddleware } from './rest/problem.ts';
import { problemPageRoutes } from './rest/problemPages.ts';
import { webRoutes } from './rest/webRoutes.ts';
import type { ServiceContext } from './services/context.ts';

export interface AppOptions {
  /** false: only the operations endpoints (a worker process). Default true. */
  api?: boolean;
  /** Whether a shutdown has begun (/readyz answers 503 from then on). */
  shuttingDown?: ShutdownProbe;
}

export function buildApp(services: ServiceContext, options: AppOptions = {}): Koa {
  const { config, logger } = services;
  // TRUST_PROXY=<hops>: Koa takes the client address from the right-most `hops` X-Forwarded-For entries.
  const hops = config.trustProxyHops || (config.trustProxy ? 1 : 0);
  const app = new Koa({ proxy: hops > 0, maxIpsCount: hops });
  const rateLimits = rateLimitsOf(services);
  app.context.rateLimits = rateLimits;

  // Outermost, so they see the final status (after problem mapping) and the whole duration.
  const access = accessLog(logger);
  app.use(access);
  app.use(metricsMiddleware());
  app.use(requestId);
  app.use(securityHeaders);
  // A finished report's poll answered 304 from memory, ahead of Koa itself (cachedNotModified.ts).
  if (options.api !== false) answerPollsAhead(app, services, rateLimits, access.line);
  app.use(closeUnreadBody);
  app.use(compression());
  app.use(problemMiddleware(logger));

  app.use(opsRoutes(services, options.shuttingDown ?? (() => false)).routes());
  if (options.api === false) {
    app.use((ctx) => {
      throw new RouteNotFoundError(ctx.method, ctx.path);
    });
    return app;
  }

  const developer = developerRoutes(services);
  // No allowedMethods(): an unknown method on a known path is a route_not_found like any other (documented).
  app.use(developer.routes());
  // The console's sign-in (sets the session cookie /graphql accepts): docs/console.md.
  app.use(consoleRoutes(services).routes());
  app.use(graphqlMiddleware(services));
  app.use(docsRoutes());
  app.use(publicTemplateRoutes().routes());
  app.use(problemPageRoutes());
  // Last: the web app answers GET for its own routes (SPA fallback) and the static assets.
  app.use(webRoutes(services));

  app.use((ctx) => {
    throw new RouteNotFoundError(ctx.method, ctx.path);
  });
  return app;
}
