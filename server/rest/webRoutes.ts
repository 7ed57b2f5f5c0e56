/**
 * The web app (Vite build of web/): the public share page and the console, plus the public read-only share
 * endpoint they use. (Placeholder until the app lands.)
 */
import type { Middleware } from 'koa';
import type { ServiceContext } from '../services/context.ts';

export function webRoutes(_services: ServiceContext): Middleware {
  return async (_ctx, next) => next();
}
