/**
 * `rateLimit('<budget>')`: counts the request against the caller's budget (server/lib/rateLimits.ts) and
 * answers 429 (problem body, Retry-After) once it is spent. Every answer carries the IETF
 * `RateLimit-Policy` and `RateLimit` headers (draft-ietf-httpapi-ratelimit-headers) of the budget counted.
 * Runs after authentication: the budget belongs to the API key (a test and a live key count apart).
 */
import type { Context, Next } from 'koa';
import { TooManyRequestsError } from '../errors.ts';
import {
  type Budget,
  type BudgetState,
  policyHeader,
  type RateLimits,
  rateLimitHeader,
} from '../lib/rateLimits.ts';
import type { Principal } from '../services/apiKeys.ts';

export type KeyBudget = Extract<Budget, 'reads' | 'submissions' | 'ai_regeneration'>;
/** Budgets charged with RateLimit headers on every answer: the key's, and the public export's per address. */
export type ChargedBudget = KeyBudget | 'share_exports';

declare module 'koa' {
  interface DefaultContext {
    /** The rate-limit registry of this app (set in buildApp). */
    rateLimits: RateLimits;
  }
}

/** Whose counter: the key, in its mode (a console session counts per account and mode). */
export function budgetSubject(principal: Principal): string {
  return `${principal.mode}:${principal.apiKeyId ?? `account:${principal.accountId}`}`;
}

const WHAT: Record<ChargedBudget, string> = {
  reads: 'requests with this API key',
  submissions: 'submissions with this API key',
  ai_regeneration: 'AI regenerations with this API key (per hour)',
  share_exports: 'Excel exports from this address (per minute)',
};

export function setRateLimitHeaders(ctx: Context, state: BudgetState): void {
  ctx.set('RateLimit-Policy', policyHeader(state));
  ctx.set('RateLimit', rateLimitHeader(state));
}

/** Counts one request of `subject` against `budget` on `ctx`; throws 429 when spent. */
export async function chargeBudget(ctx: Context, budget: ChargedBudget, subject: string): Promise<void> {
  const state = await ctx.rateLimits.consume(budget, subject);
  setRateLimitHeaders(ctx, state);
  if (!state.allowed) {
    throw new TooManyRequestsError(
      `Too many ${WHAT[budget]}; try again in ${state.resetSeconds} seconds.`,
      state.resetSeconds,
    );
  }
}

export function rateLimit(budget: KeyBudget) {
  return async function limitRate(ctx: Context, next: Next): Promise<void> {
    const principal = ctx.state.principal as Principal | undefined;
    if (!principal) throw new Error(`rateLimit('${budget}') runs after authentication`);
    await chargeBudget(ctx, budget, budgetSubject(principal));
    await next();
  };
}
