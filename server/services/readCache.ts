/**
 * What a conditional read needs, kept in memory per process, so that polling a finished report with
 * If-None-Match costs no database round trip: the API keys verified here (by the key's SHA-256, never the key)
 * and the ETag of each finished report read here. And the benchmark sets each analysis job matches its report
 * against (by the industry codes asked for), which change only when an operator loads or retires a set.
 *
 * Correctness rests on invalidation, not on expiry. A trigger on `api_keys` (revocation, deletion) and one on
 * `reports` (any change or deletion of a report that is no longer pending) send `NOTIFY fra_changes` when their
 * transaction commits (migration Migration20261128210000_read_cache; `benchmark_sets`, any change: migration
 * Migration20261129010000_benchmark_sets_notify); every process listens on pg-boss's
 * LISTEN connection (reconnected by pg-boss, with a heartbeat) and drops what changed. The code paths of this
 * process that revoke a key or change a finished report also drop it at once (`forgetApiKeys`,
 * `forgetReports`), so in the process that made a change the next request sees it; another process sees it
 * when the notification arrives (milliseconds). The cache is not used until the LISTEN is established, is
 * off from a connection error until the listener is back, emptied whenever it (re)connects, and trusts an entry for at most 10 s — the bound on staleness
 * should notifications be lost while a dropped connection goes unnoticed (pg-boss's heartbeat notices within
 * 15 s). Only successes are kept (an unknown or revoked key is looked up every time), at most 10,000 of each.
 *
 * A read that started before a change was notified must not put back what it read: every change bumps a
 * generation, and an entry is kept only when the generation is the one its read started under.
 */

import type { Db } from 'pg-boss';
import type { Logger } from 'pino';
import type { BenchmarkSet } from '../benchmarks/types.ts';
import type { ApiKeyMode } from '../db/entities/apiKey.entity.ts';
import type { Principal } from './apiKeys.ts';

export const CHANGES_CHANNEL = 'fra_changes';
/** The longest an entry is trusted without a notification. */
export const READ_CACHE_TTL_MS = 10_000;
const MAX_ENTRIES = 10_000;

interface KeyEntry {
  principal: Principal;
  at: number;
}

interface TagEntry {
  etag: string;
  accountId: string;
  mode: ApiKeyMode;
  at: number;
}

interface SetsEntry {
  sets: readonly BenchmarkSet[];
  at: number;
}

/** Every cache of this process that is listening (a test process may run several services). */
const caches = new Set<ReadCache>();

/** A key was revoked or deleted by this process: no cache of the process trusts a key it verified before. */
export function forgetApiKeys(): void {
  for (const cache of caches) cache.forgetKeys();
}

/** A benchmark set was loaded or retired by this process. */
export function forgetBenchmarkSets(): void {
  for (const cache of caches) cache.forgetBenchmarkSets();
}

/** These reports changed or were deleted by this process. */
export function forgetReports(ids: Iterable<string>): void {
  const list = [...ids];
  for (const cache of caches) for (const id of list) cache.forgetReport(id);
}

function remember<T>(map: Map<string, T>, key: string, value: T): void {
  map.delete(key);
  map.set(key, value);
  // Insertion order is age order: the oldest goes first.
  if (map.size > MAX_ENTRIES) map.delete(map.keys().next().value!);
}

export class ReadCache {
  readonly #keys = new Map<string, KeyEntry>();
  readonly #tags = new Map<string, TagEntry>();
  readonly #sets = new Map<string, SetsEntry>();
  #generation = 0;
  #listening = false;
  #subscription: { close(): Promise<void> } | null = null;
  readonly #now: () => number;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** Listens on `fra_changes` through pg-boss's database; without LISTEN the cache stays off (every read looks up). */
  static async start(db: Db, logger: Logger, now?: () => number): Promise<ReadCache> {
    const cache = new ReadCache(now);
    if (typeof db.listen !== 'function') {
      logger.warn('read cache: the database offers no LISTEN; conditional reads are looked up every time');
      return cache;
    }
    try {
      cache.#subscription = await db.listen(
        CHANGES_CHANNEL,
        (payload) => cache.#notified(payload),
        () => cache.#reconnected(),
      );
    } catch (error) {
      logger.warn({ err: error }, 'read cache: LISTEN failed; conditional reads are looked up every time');
      return cache;
    }
    // pg-boss's database emits 'error' when the listener's connection drops (and on pool errors): the cache is
    // off from then until the listener is back (#reconnected), since notifications sent meanwhile are lost.
    const events = db as unknown as { on?: (event: 'error', listener: () => void) => void };
    events.on?.('error', () => cache.#suspend());
    caches.add(cache);
    return cache;
  }

  /** Whether entries are used at all (the LISTEN is established). */
  get listening(): boolean {
    return this.#listening;
  }

  /** Taken before a database read whose result may be remembered. */
  generation(): number {
    return this.#generation;
  }

  /** A live entry of `map`: none while not listening, and an expired one is dropped. */
  #fresh<T extends { at: number }>(map: Map<string, T>, key: string): T | undefined {
    if (!this.#listening) return undefined;
    const entry = map.get(key);
    if (entry && this.#now() - entry.at > READ_CACHE_TTL_MS) {
      map.delete(key);
      return undefined;
    }
    return entry;
  }

  apiKey(hash: string): Principal | undefined {
    return this.#fresh(this.#keys, hash)?.principal;
  }

  rememberApiKey(hash: string, principal: Principal, generation: number): void {
    if (!this.#listening || generation !== this.#generation) return;
    remember(this.#keys, hash, { principal, at: this.#now() });
  }

  /** The ETag of a finished report, when the principal may read it and it was read here recently. */
  reportTag(reportId: string, principal: Principal): string | undefined {
    const entry = this.#fresh(this.#tags, reportId);
    return entry?.accountId === principal.accountId && entry.mode === principal.mode ? entry.etag : undefined;
  }

  rememberReportTag(reportId: string, principal: Principal, etag: string, generation: number): void {
    if (!this.#listening || generation !== this.#generation) return;
    remember(this.#tags, reportId, {
      etag,
      accountId: principal.accountId,
      mode: principal.mode,
      at: this.#now(),
    });
  }

  /** The usable benchmark sets for industry codes `codes` (setsForIndustry's key), when read here recently. */
  benchmarkSets(codes: string): readonly BenchmarkSet[] | undefined {
    return this.#fresh(this.#sets, codes)?.sets;
  }

  /** Keeps `sets` for `codes`; they are shared by every report that asks, and must not be changed. */
  rememberBenchmarkSets(codes: string, sets: readonly BenchmarkSet[], generation: number): void {
    if (!this.#listening || generation !== this.#generation) return;
    remember(this.#sets, codes, { sets, at: this.#now() });
  }

  forgetBenchmarkSets(): void {
    this.#generation++;
    this.#sets.clear();
  }

  forgetKeys(): void {
    this.#generation++;
    this.#keys.clear();
  }

  forgetReport(id: string): void {
    this.#generation++;
    this.#tags.delete(id);
  }

  #forgetAll(): void {
    this.#generation++;
    this.#keys.clear();
    this.#tags.clear();
    this.#sets.clear();
  }

  #notified(payload: string): void {
    if (payload.startsWith('k:')) this.forgetKeys();
    else if (payload.startsWith('r:')) this.forgetReport(payload.slice(2));
    else if (payload.startsWith('b:')) this.forgetBenchmarkSets();
    else this.#forgetAll();
  }

  /** After the first LISTEN and after every reconnection: what was missed in between is unknown. */
  #reconnected(): void {
    this.#forgetAll();
    this.#listening = true;
  }

  #suspend(): void {
    this.#listening = false;
    this.#forgetAll();
  }

  async stop(): Promise<void> {
    caches.delete(this);
    this.#listening = false;
    this.#forgetAll();
    await this.#subscription?.close();
    this.#subscription = null;
  }
}
