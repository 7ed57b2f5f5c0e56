/**
 * A GraphQL read spends its `reads` budget in proportion to its cost: the request's first point is spent
 * before Yoga reads the body (server/graphql/index.ts, so a flood is refused cheaply), and once the operation
 * has been validated this plugin spends ⌈cost / GRAPHQL_COST_PER_READ⌉ − 1 more (cost: server/graphql/limits.ts,
 * the objects a response can hold). A query near the 10,000 ceiling costs 100 points — a whole burst of one
 * key — where a single report costs 1. Cheap requests (cost ≤ one unit) make no second statement.
 * Over the budget: HTTP 429 with Retry-After and a TOO_MANY_REQUESTS error, and nothing executes.
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from 'koa';
import { TooManyRequestsError } from '../errors.ts';
import { rateLimitsOf } from '../lib/rateLimits.ts';
import { spendBudget } from '../middlewares/rateLimit.ts';
import type { GraphQLContext } from './context.ts';
import { operationCost } from './limits.ts';

/** Points of `reads` an operation of this cost spends in all (≥ 1); `unit` 0 → one per request. */
export function readPoints(cost: number, unit: number): number {
  return unit > 0 ? Math.max(1, Math.ceil(cost / unit)) : 1;
}

export const readCostPlugin: Plugin<GraphQLContext & { koa?: Context }> = {
  async onExecute({ args, setResultAndStopExecution }) {
    const ctx = args.contextValue;
    const unit = ctx.services.config.graphqlCostPerRead;
    const extra = readPoints(operationCost(args.schema, args.document, args.operationName), unit) - 1;
    if (extra <= 0) return;
    try {
      await spendBudget(rateLimitsOf(ctx.services), 'reads', ctx.principal, {
        weight: extra,
        headers: ctx.koa,
      });
    } catch (error) {
      if (!(error instanceof TooManyRequestsError)) throw error;
      const headers: Record<string, string> = { 'Retry-After': String(error.retryAfterSeconds) };
      const policy = ctx.koa?.response.get('RateLimit-Policy');
      if (policy) headers['RateLimit-Policy'] = policy;
      setResultAndStopExecution({
        errors: [
          new GraphQLError(error.message, {
            extensions: {
              code: 'TOO_MANY_REQUESTS',
              retryAfterSeconds: error.retryAfterSeconds,
              http: { status: 429, headers },
            },
          }),
        ],
      });
    }
  },
};
