/**
 * Builds the Koa application without listening: main.ts listens, tests drive it over a real socket.
 */
import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import { RouteNotFoundError, ServiceUnavailableError } from './errors.ts';
import { graphqlMiddleware } from './graphql/index.ts';
import { compression } from './middlewares/compress.ts';
import { consoleRoutes } from './rest/consoleRoutes.ts';
import { developerRoutes } from './rest/developerRoutes.ts';
import { docsRoutes } from './rest/docsRoutes.ts';
import { problemMiddleware } from './rest/problem.ts';
import { problemPageRoutes } from './rest/problemPages.ts';
import { webRoutes } from './rest/webRoutes.ts';
import type { ServiceContext } from './services/context.ts';

export function buildApp(services: ServiceContext): Koa {
  const app = new Koa({ proxy: services.config.trustProxy });
  const { logger } = services;

  app.use(async (ctx, next) => {
    const started = performance.now();
    const requestId = ctx.get('X-Request-Id') || randomUUID();
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      logger.debug(
        {
          requestId,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          ms: Math.round(performance.now() - started),
        },
        'request',
      );
    }
  });
  app.use(compression());
  app.use(problemMiddleware(logger));

  app.use(async (ctx, next) => {
    if (ctx.method !== 'GET' || ctx.path !== '/healthz') return next();
    try {
      await services.db.orm.em.fork().getConnection().execute('select 1');
    } catch {
      throw new ServiceUnavailableError('The database is not reachable.');
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok', database: services.db.kind };
  });

  const developer = developerRoutes(services);
  // No allowedMethods(): an unknown method on a known path is a route_not_found like any other (documented).
  app.use(developer.routes());
  // The console's sign-in (sets the session cookie /graphql accepts): docs/console.md.
  app.use(consoleRoutes(services).routes());
  app.use(graphqlMiddleware(services));
  app.use(docsRoutes());
  app.use(problemPageRoutes());
  // Last: the web app answers GET for its own routes (SPA fallback) and the static assets.
  app.use(webRoutes(services));

  app.use((ctx) => {
    throw new RouteNotFoundError(ctx.method, ctx.path);
  });
  return app;
}
