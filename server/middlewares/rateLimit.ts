/**
 * `rateLimit('<budget>')`: counts the request against the caller's budget (server/lib/rateLimits.ts) and
 * answers 429 (problem body, Retry-After) once it is spent. Every answer carries the IETF
 * `RateLimit-Policy` and `RateLimit` headers (draft-ietf-httpapi-ratelimit-headers) of the budget counted.
 * Runs after authentication: the budget belongs to the API key (a test and a live key count apart), under
 * a ceiling for the whole account; a console session spends its account's, per mode.
 *
 * `spendBudget` is the one way a caller spends a budget, for REST routes and GraphQL fields alike, so a
 * GraphQL twin cannot spend less than its REST route.
 */
import type { Context, Next } from 'koa';
import { TooManyRequestsError } from '../errors.ts';
import {
  type AccountBudget,
  type BudgetState,
  policyHeader,
  type RateLimits,
  rateLimitHeader,
  type Spender,
} from '../lib/rateLimits.ts';
import type { Principal } from '../services/apiKeys.ts';

export type KeyBudget = AccountBudget;
/** Budgets charged per client address with RateLimit headers: the public share link's reads and exports. */
export type AddressBudget = 'share_exports' | 'share_reads';

declare module 'koa' {
  interface DefaultContext {
    /** The rate-limit registry of this app (set in buildApp). */
    rateLimits: RateLimits;
  }
}

/** Whose counters: the key, in its mode (a console session counts per account and mode), and the account. */
export function budgetSpender(principal: Principal): Spender {
  return {
    subject: `${principal.mode}:${principal.apiKeyId ?? `account:${principal.accountId}`}`,
    accountId: principal.accountId,
  };
}

const WHAT: Record<KeyBudget | AddressBudget, string> = {
  reads: 'requests',
  submissions: 'submissions and writes',
  ai_regeneration: 'AI regenerations (per hour)',
  share_exports: 'Excel exports from this address (per minute)',
  share_reads: 'shared-report reads from this address (per minute)',
};

export function setRateLimitHeaders(
  ctx: { set(field: string, value: string): unknown },
  state: BudgetState,
): void {
  ctx.set('RateLimit-Policy', policyHeader(state));
  ctx.set('RateLimit', rateLimitHeader(state));
}

/** The 429 of a spent budget: whose budget (the key's or the whole account's) and when to come back. */
export function budgetRefusal(state: BudgetState): TooManyRequestsError {
  const whose =
    state.policy === state.budget
      ? state.budget === 'share_exports' || state.budget === 'share_reads'
        ? ''
        : ' with this API key (or console session)'
      : " with this account's keys and sessions together";
  return new TooManyRequestsError(
    `Too many ${WHAT[state.budget as KeyBudget | AddressBudget]}${whose}; try again in ${state.resetSeconds} seconds.`,
    state.resetSeconds,
  );
}

/**
 * Spends `weight` points of `principal`'s `budget` (its own counter and its account's ceiling, one statement);
 * throws 429 when either is spent. `headers`, when given, receives the RateLimit headers either way.
 */
export async function spendBudget(
  limits: RateLimits,
  budget: KeyBudget,
  principal: Principal,
  options: { weight?: number; headers?: Pick<Context, 'set'> } = {},
): Promise<BudgetState> {
  const state = await limits.consumeFor(budget, budgetSpender(principal), options.weight ?? 1);
  if (options.headers) setRateLimitHeaders(options.headers, state);
  if (!state.allowed) throw budgetRefusal(state);
  return state;
}

/** Counts one request of a client address against a public budget; throws 429 when spent. */
export async function chargeAddress(ctx: Context, budget: AddressBudget, subject: string): Promise<void> {
  const state = await ctx.rateLimits.consume(budget, subject);
  setRateLimitHeaders(ctx, state);
  if (!state.allowed) throw budgetRefusal(state);
}

export function rateLimit(budget: KeyBudget) {
  return async function limitRate(ctx: Context, next: Next): Promise<void> {
    const principal = ctx.state.principal as Principal | undefined;
    if (!principal) throw new Error(`rateLimit('${budget}') runs after authentication`);
    await spendBudget(ctx.rateLimits, budget, principal, { headers: ctx });
    await next();
  };
}
