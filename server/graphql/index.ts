/**
 * The GraphQL API at /graphql (graphql-yoga + Pothos), on the same services and presenters as REST.
 * (Placeholder until the schema lands: answers nothing, so requests fall through to the 404 handler.)
 */
import type { Middleware } from 'koa';
import type { ServiceContext } from '../services/context.ts';

export function graphqlMiddleware(_services: ServiceContext): Middleware {
  return async (_ctx, next) => next();
}
