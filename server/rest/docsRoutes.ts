/**
 * The REST contract: /api/v1/openapi.json (from schema/openapi.yaml) and a readable reference at /docs.
 * (Placeholder until the document lands.)
 */
import type { Middleware } from 'koa';

export function docsRoutes(): Middleware {
  return async (_ctx, next) => next();
}
