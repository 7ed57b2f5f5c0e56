/**
 * Every throttle of the service, as named budgets counted in PostgreSQL (rate-limiter-flexible's
 * RateLimiterPostgres over the app's own database, PGlite included), so several processes on one database
 * share the counters. Each consume is one atomic upsert (`INSERT … ON CONFLICT DO UPDATE … RETURNING`), so N
 * concurrent requests can never be granted more than the budget. The table is created by a committed
 * migration (Migration20261123200000_rate_limits), hence `tableCreated: true`.
 *
 * Budgets (contract 5; sizes from Config.rateLimits, i.e. the environment — README):
 *   reads, submissions, ai_regeneration — per API key (a test and a live key never share a counter);
 *   login_client — sign-in attempts per email AND client address; login_email — the higher ceiling per email;
 *   signup — sign-up attempts per client address;
 *   share_exports — Excel exports of shared reports per client address (public: no key to count against;
 *   every request counts, a wrong link too, so guessing links is throttled as well).
 */
import { createHash } from 'node:crypto';
import { CompiledQuery, type Kysely } from 'kysely';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { TooManyRequestsError } from '../errors.ts';

export const BUDGETS = [
  'reads',
  'submissions',
  'ai_regeneration',
  'login_client',
  'login_email',
  'signup',
  'share_exports',
] as const;
export type Budget = (typeof BUDGETS)[number];

export interface BudgetSize {
  /** Requests allowed per window (the burst). */
  points: number;
  /** The window, seconds (points / sustained rate). */
  windowSeconds: number;
}

export const RATE_LIMIT_TABLE = 'rate_limits';

/** What one consume found: enough for the RateLimit / RateLimit-Policy headers and a 429's Retry-After. */
export interface BudgetState {
  budget: Budget;
  size: BudgetSize;
  remaining: number;
  /** Seconds until the window resets (≥ 1 when exhausted). */
  resetSeconds: number;
  allowed: boolean;
}

/**
 * The `pg`-Pool-shaped client RateLimiterPostgres calls, over the ORM's Kysely instance: the same connection
 * pool on PostgreSQL, and on PGlite (one session) the dialect that queues statements behind transactions.
 */
function storeClient(db: Database) {
  const kysely = db.orm.em.getConnection().getClient() as Kysely<unknown>;
  return {
    async query(query: { text: string; values?: unknown[] }) {
      const result = await kysely.executeQuery(CompiledQuery.raw(query.text, query.values ?? []));
      return { rows: result.rows, rowCount: Number(result.numAffectedRows ?? result.rows.length) };
    },
  };
}

/** Keys are hashed: fixed length for the varchar(255) key column, and no email address stored in clear. */
const digest = (text: string) => createHash('sha256').update(text).digest('base64url');

export class RateLimits {
  readonly sizes: Record<Budget, BudgetSize>;
  readonly #limiters: Record<Budget, RateLimiterPostgres>;

  constructor(db: Database, sizes: Record<Budget, BudgetSize>) {
    this.sizes = sizes;
    const client = storeClient(db);
    this.#limiters = Object.fromEntries(
      BUDGETS.map((budget) => [
        budget,
        new RateLimiterPostgres({
          storeClient: client,
          storeType: 'pool',
          tableName: RATE_LIMIT_TABLE,
          tableCreated: true,
          keyPrefix: budget,
          points: sizes[budget].points,
          duration: sizes[budget].windowSeconds,
          // One sweeper is enough: it deletes every expired row of the shared table, whatever its budget.
          clearExpiredByTimeout: budget === 'reads',
        }),
      ]),
    ) as Record<Budget, RateLimiterPostgres>;
  }

  /** Counts one request of `subject` against `budget`; never throws for being over (see `allowed`). */
  async consume(budget: Budget, subject: string): Promise<BudgetState> {
    const size = this.sizes[budget];
    let res: RateLimiterRes;
    let allowed = true;
    try {
      res = await this.#limiters[budget].consume(digest(subject));
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      res = error;
      allowed = false;
    }
    return {
      budget,
      size,
      allowed,
      remaining: res.remainingPoints,
      resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    };
  }

  /** Counts one request and throws 429 (with Retry-After) when the budget is spent. */
  async take(budget: Budget, subject: string, what: string): Promise<BudgetState> {
    const state = await this.consume(budget, subject);
    if (!state.allowed) {
      throw new TooManyRequestsError(
        `Too many ${what}; try again in ${state.resetSeconds} seconds.`,
        state.resetSeconds,
      );
    }
    return state;
  }

  /** Forgets `subject`'s count (a successful sign-in clears its own failures). */
  async reset(budget: Budget, subject: string): Promise<void> {
    await this.#limiters[budget].delete(digest(subject));
  }
}

/** One registry per configuration (a test may start a second app with other settings on the same database). */
const registries = new WeakMap<Config, RateLimits>();

export function rateLimitsOf(services: { config: Config; db: Database }): RateLimits {
  let limits = registries.get(services.config);
  if (!limits) {
    limits = new RateLimits(services.db, services.config.rateLimits);
    registries.set(services.config, limits);
  }
  return limits;
}

/** `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers): `"reads";q=100;w=2`. */
export function policyHeader(state: BudgetState): string {
  return `"${state.budget}";q=${state.size.points};w=${Math.ceil(state.size.windowSeconds)}`;
}

/** `RateLimit` (same draft): `"reads";r=97;t=1` — remaining requests and seconds to the window's reset. */
export function rateLimitHeader(state: BudgetState): string {
  return `"${state.budget}";r=${state.remaining};t=${state.resetSeconds}`;
}
