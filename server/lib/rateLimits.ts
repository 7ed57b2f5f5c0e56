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
import { hash } from 'node:crypto';
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
  'share_reads',
] as const;
export type Budget = (typeof BUDGETS)[number];

/** The budgets a caller (API key or console session) spends: each also has a ceiling per account. */
export const ACCOUNT_BUDGETS = ['reads', 'submissions', 'ai_regeneration'] as const;
export type AccountBudget = (typeof ACCOUNT_BUDGETS)[number];

export interface BudgetSize {
  /** Requests allowed per window (the burst). */
  points: number;
  /** The window, seconds (points / sustained rate). */
  windowSeconds: number;
}

export const RATE_LIMIT_TABLE = 'rate_limits';

/** One counter's state after a consume. */
export interface CounterState {
  /** The policy's name in the RateLimit headers: the budget, or `<budget>_account` for an account ceiling. */
  policy: string;
  size: BudgetSize;
  remaining: number;
  /** Seconds until the window resets (≥ 1 when exhausted). */
  resetSeconds: number;
  allowed: boolean;
}

/** What one consume found: enough for the RateLimit / RateLimit-Policy headers and a 429's Retry-After. */
export interface BudgetState extends CounterState {
  budget: Budget;
  /** Every counter spent, for the headers: the caller's own, then its account's ceiling (ACCOUNT_BUDGETS). */
  counters: CounterState[];
}

/** Who spends a caller's budget: its own counter (a key, or a console session's account and mode) and its account. */
export interface Spender {
  subject: string;
  accountId: string;
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

/**
 * Whose counter a client address is: an IPv4 address as it is; an IPv6 address by its /64 — one subscriber
 * gets a whole /64 (RFC 6177 and every ISP), and rotating through it is free, so counting full addresses let
 * one client multiply every per-address budget (25/25 sign-ups with a limit of 20). IPv4-mapped IPv6
 * (`::ffff:192.0.2.1`, what a dual-stack socket reports) is the IPv4 address.
 */
export function clientSubject(address: string): string {
  const ip = address.trim().toLowerCase().replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  if (mapped) return mapped[1]!;
  if (!ip.includes(':')) return ip;
  const groups = expandIPv6(ip);
  return groups ? `${groups.slice(0, 4).join(':')}::/64` : ip;
}

/** The eight 16-bit groups of an IPv6 address (embedded IPv4 tail included), or null when it is not one. */
function expandIPv6(ip: string): string[] | null {
  let text = ip;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return null;
  return groups.map((group) => group.replace(/^0+(?=.)/, ''));
}

/** Keys are hashed: fixed length for the varchar(255) key column, and no email address stored in clear. */
const digest = (text: string) => hash('sha256', text, 'base64url');

/**
 * `digest` of an API key's or a session's subject and of an account id (ids, not secrets): every request of a
 * caller hashes the same two texts, so their digests are kept — at most DIGESTS_KEPT, all forgotten when full,
 * so that varied callers cannot grow it. Client addresses and sign-in emails (`consume`) are not kept.
 */
const DIGESTS_KEPT = 10_000;
const callerDigests = new Map<string, string>();
function callerDigest(text: string): string {
  let value = callerDigests.get(text);
  if (value === undefined) {
    value = digest(text);
    if (callerDigests.size >= DIGESTS_KEPT) callerDigests.clear();
    callerDigests.set(text, value);
  }
  return value;
}

/**
 * A caller's counter and its account's, in ONE statement (so the account ceiling costs no extra round trip):
 * rate-limiter-flexible's fixed-window upsert, for two rows. Rows are locked in the order given, the key's
 * first, so two requests never wait on each other in opposite orders.
 */
const PAIR_UPSERT_SQL = `
  insert into ${RATE_LIMIT_TABLE} as r (key, points, expire) values ($1, $3, $4), ($2, $3, $5)
  on conflict (key) do update set
    points = case when r.expire <= $6 then excluded.points else r.points + excluded.points end,
    expire = case when r.expire <= $6 then excluded.expire else r.expire end
  returning key, points, expire`;

/** A caller's reserved points (consumeFor): both counters as the reserving statement left them. */
interface Lease {
  own: { policy: string; size: BudgetSize; used: number; expire: number };
  account: { policy: string; size: BudgetSize; used: number; expire: number };
  /** Reserved points not yet spent. */
  left: number;
  /** When the first of the two windows ends: the lease is void from then on. */
  expiresAt: number;
}

/** Windows longer than this are counted a point at a time: a lease left unspent would be lost for too long. */
const LEASE_MAX_WINDOW_SECONDS = 10;
/** The most points one lease reserves. */
const LEASE_MAX_POINTS = 50;

/**
 * How many points one statement reserves for a caller: a tenth of the smaller window (so a process can hold
 * back at most a tenth of a budget from the others), at most LEASE_MAX_POINTS, and 1 — every request counted
 * on its own, as before leases — for small budgets and long windows (ai_regeneration's hour).
 */
export function leaseSize(size: BudgetSize, accountSize: BudgetSize): number {
  if (Math.max(size.windowSeconds, accountSize.windowSeconds) > LEASE_MAX_WINDOW_SECONDS) return 1;
  return Math.max(1, Math.min(LEASE_MAX_POINTS, Math.floor(Math.min(size.points, accountSize.points) / 10)));
}

export class RateLimits {
  readonly sizes: Record<Budget, BudgetSize>;
  readonly accountSizes: Record<AccountBudget, BudgetSize>;
  readonly #limiters: Record<Budget, RateLimiterPostgres>;
  readonly #client: ReturnType<typeof storeClient>;
  /**
   * Counters this process has seen spent, until their window resets: a request against one is refused from
   * memory, with no statement. A spent counter stays spent until its reset (refused requests count too), so
   * this never refuses what the database would allow; it makes a flood's 429s cheap (no round trip, no pool
   * connection), which is what keeps a flooding client from slowing everyone else's requests.
   */
  readonly #spent = new Map<string, { resetAt: number; state: CounterState }>();
  /** Points reserved in the database and not yet spent, per caller and account (see consumeFor). */
  readonly #leases = new Map<string, Lease>();
  /** The lease being reserved per caller and account: concurrent requests wait for it. */
  readonly #leasing = new Map<string, Promise<BudgetState>>();

  constructor(
    db: Database,
    sizes: Record<Budget, BudgetSize>,
    accountSizes: Record<AccountBudget, BudgetSize>,
  ) {
    this.sizes = sizes;
    this.accountSizes = accountSizes;
    const client = storeClient(db);
    this.#client = client;
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

  /** The spent counters among `keys`, as refused states with their time to reset; empty when none. */
  #spentAmong(keys: string[], now: number): CounterState[] {
    const spent: CounterState[] = [];
    for (const key of keys) {
      const entry = this.#spent.get(key);
      if (!entry) continue;
      if (entry.resetAt <= now) {
        this.#spent.delete(key);
        continue;
      }
      spent.push({
        ...entry.state,
        remaining: 0,
        resetSeconds: Math.max(1, Math.ceil((entry.resetAt - now) / 1000)),
      });
    }
    return spent;
  }

  #remember(key: string, state: CounterState, now: number): void {
    if (state.allowed) return;
    if (this.#spent.size >= 10_000) {
      for (const [old, entry] of this.#spent) if (entry.resetAt <= now) this.#spent.delete(old);
      if (this.#spent.size >= 10_000) this.#spent.clear();
    }
    this.#spent.set(key, { resetAt: now + state.resetSeconds * 1000, state });
  }

  /** Counts one request of `subject` against `budget`; never throws for being over (see `allowed`). */
  async consume(budget: Budget, subject: string): Promise<BudgetState> {
    const now = Date.now();
    const cacheKey = `${budget}:${digest(subject)}`;
    const [cached] = this.#spentAmong([cacheKey], now);
    if (cached) return { ...cached, budget, counters: [cached] };
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
    const state: CounterState = {
      policy: budget,
      size,
      allowed,
      remaining: res.remainingPoints,
      resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    };
    this.#remember(cacheKey, state, now);
    return { ...state, budget, counters: [state] };
  }

  /**
   * Counts `weight` points of a caller against `budget` — its own counter and its account's ceiling. Refused when
   * either is over. A weight above the caller's whole window is counted as the window (such a request must stay
   * possible once the window is fresh).
   *
   * Points are reserved in the database before they are spent, a lease at a time (`leaseSize`): one statement
   * reserves the lease on both counters, and the requests that follow spend it from memory until it runs out or
   * either window ends. So nothing is ever granted that the database did not count first — no overshoot,
   * whatever the number of processes — and one statement serves a lease's worth of requests. The price is
   * bounded: points a process leased and did not spend before the window ended are lost to the other processes
   * (at most `leaseSize − 1` per process and counter). One lease is taken at a time per caller and process:
   * concurrent requests wait for it instead of each reserving its own.
   */
  async consumeFor(budget: AccountBudget, spender: Spender, weight = 1): Promise<BudgetState> {
    const { points, ownKey, accountKey, leaseKey } = this.#callerKeys(budget, spender, weight);
    for (;;) {
      const now = Date.now();
      const spent = this.#spentAmong([ownKey, accountKey], now);
      if (spent.length > 0) return { ...spent[0]!, budget, allowed: false, counters: spent };
      const leased = this.#spendLease(budget, leaseKey, points, now);
      if (leased) return leased;
      const taking = this.#leasing.get(leaseKey);
      if (taking) {
        await taking;
        continue;
      }
      const reserve = this.#reserve(budget, ownKey, accountKey, leaseKey, points, now);
      this.#leasing.set(leaseKey, reserve);
      try {
        return await reserve;
      } finally {
        this.#leasing.delete(leaseKey);
      }
    }
  }

  /**
   * `consumeFor` when it needs neither a statement nor a wait: spends the points from the caller's lease in memory
   * and returns the allowed state. Null — nothing spent — when no counter of the caller is known spent and the
   * lease is missing, short or expired: then `consumeFor` decides (it reserves, waits or refuses), with its 429.
   */
  spendLeased(budget: AccountBudget, spender: Spender, weight = 1): BudgetState | null {
    const { points, ownKey, accountKey, leaseKey } = this.#callerKeys(budget, spender, weight);
    const now = Date.now();
    if (this.#spent.has(ownKey) || this.#spent.has(accountKey)) return null;
    return this.#spendLease(budget, leaseKey, points, now);
  }

  #callerKeys(budget: AccountBudget, spender: Spender, weight: number) {
    const size = this.sizes[budget];
    const accountSize = this.accountSizes[budget];
    const points = Math.max(1, Math.min(Math.ceil(weight), size.points, accountSize.points));
    const ownKey = `${budget}:${callerDigest(spender.subject)}`;
    const accountKey = `${budget}_account:${callerDigest(spender.accountId)}`;
    return { points, ownKey, accountKey, leaseKey: `${ownKey} ${accountKey}` };
  }

  /** Spends `points` of the lease under `leaseKey` when it is current and holds them; null otherwise. */
  #spendLease(budget: AccountBudget, leaseKey: string, points: number, now: number): BudgetState | null {
    const lease = this.#leases.get(leaseKey);
    if (!lease || lease.expiresAt <= now || lease.left < points) return null;
    lease.left -= points;
    return this.#leaseState(budget, lease, now);
  }

  /** One statement: reserves a lease (at least `points`) on both counters and spends `points` of it. */
  async #reserve(
    budget: AccountBudget,
    ownKey: string,
    accountKey: string,
    leaseKey: string,
    points: number,
    now: number,
  ): Promise<BudgetState> {
    const size = this.sizes[budget];
    const accountSize = this.accountSizes[budget];
    const asked = Math.max(points, leaseSize(size, accountSize));
    const { rows } = await this.#client.query({
      text: PAIR_UPSERT_SQL,
      values: [
        ownKey,
        accountKey,
        asked,
        now + size.windowSeconds * 1000,
        now + accountSize.windowSeconds * 1000,
        now,
      ],
    });
    const found = new Map(
      (rows as Array<{ key: string; points: number; expire: string | number }>).map((row) => [row.key, row]),
    );
    const read = (key: string) => {
      const row = found.get(key);
      return { used: Number(row?.points ?? asked), expire: Number(row?.expire ?? now) };
    };
    const own = read(ownKey);
    const account = read(accountKey);
    // What the lease really got: the points reserved past a limit were counted, but are not there to spend.
    const granted = asked - Math.max(0, own.used - size.points, account.used - accountSize.points);
    const lease: Lease = {
      own: { policy: budget, size, used: own.used, expire: own.expire },
      account: { policy: `${budget}_account`, size: accountSize, used: account.used, expire: account.expire },
      left: Math.max(0, granted - points),
      expiresAt: Math.min(own.expire, account.expire),
    };
    if (granted >= points) {
      this.#storeLease(leaseKey, lease, now);
      return this.#leaseState(budget, lease, now);
    }
    this.#leases.delete(leaseKey);
    const counter = (c: Lease['own'], allowed: boolean): CounterState => ({
      policy: c.policy,
      size: c.size,
      allowed,
      remaining: 0,
      resetSeconds: Math.max(1, Math.ceil(Math.max(0, c.expire - now) / 1000)),
    });
    const ownState = counter(lease.own, own.used - asked + points <= size.points);
    const accountState = counter(lease.account, account.used - asked + points <= accountSize.points);
    this.#remember(ownKey, ownState, now);
    this.#remember(accountKey, accountState, now);
    // The counter that refused (or, when both allow, the caller's own) is the one a 429's Retry-After names.
    const binding = ownState.allowed && !accountState.allowed ? accountState : ownState;
    return { ...binding, budget, allowed: false, counters: [ownState, accountState] };
  }

  /** An allowed request's state from its lease: remaining = what the database has left + what the lease has. */
  #leaseState(budget: AccountBudget, lease: Lease, now: number): BudgetState {
    const counter = (c: Lease['own']): CounterState => ({
      policy: c.policy,
      size: c.size,
      allowed: true,
      remaining: Math.max(0, c.size.points - c.used) + lease.left,
      resetSeconds: Math.max(1, Math.ceil(Math.max(0, c.expire - now) / 1000)),
    });
    const own = counter(lease.own);
    return { ...own, budget, counters: [own, counter(lease.account)] };
  }

  #storeLease(key: string, lease: Lease, now: number): void {
    if (this.#leases.size >= 10_000) {
      for (const [old, entry] of this.#leases) if (entry.expiresAt <= now) this.#leases.delete(old);
      if (this.#leases.size >= 10_000) this.#leases.clear();
    }
    this.#leases.set(key, lease);
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
    this.#spent.delete(`${budget}:${digest(subject)}`);
    await this.#limiters[budget].delete(digest(subject));
  }
}

/** One registry per configuration (a test may start a second app with other settings on the same database). */
const registries = new WeakMap<Config, RateLimits>();

export function rateLimitsOf(services: { config: Config; db: Database }): RateLimits {
  let limits = registries.get(services.config);
  if (!limits) {
    limits = new RateLimits(services.db, services.config.rateLimits, services.config.accountRateLimits);
    registries.set(services.config, limits);
  }
  return limits;
}

/**
 * `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers): `"reads";q=100;w=2`, and the account's ceiling
 * after it when the budget has one: `"reads";q=100;w=2, "reads_account";q=200;w=2`.
 */
export function policyHeader(state: BudgetState): string {
  return state.counters
    .map((c) => `"${c.policy}";q=${c.size.points};w=${Math.ceil(c.size.windowSeconds)}`)
    .join(', ');
}

/** `RateLimit` (same draft): `"reads";r=97;t=1` — remaining points and seconds to the window's reset, per policy. */
export function rateLimitHeader(state: BudgetState): string {
  return state.counters.map((c) => `"${c.policy}";r=${c.remaining};t=${c.resetSeconds}`).join(', ');
}
