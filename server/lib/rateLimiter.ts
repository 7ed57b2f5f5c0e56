/**
 * Fixed-window counters in memory, for throttling sign-in attempts. Per process: behind several instances
 * each allows its own quota, which still bounds guessing to a small multiple (documented).
 */
export class RateLimiter {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #hits = new Map<string, { count: number; resetAt: number }>();

  constructor(limit: number, windowMs: number) {
    this.#limit = limit;
    this.#windowMs = windowMs;
  }

  /** Seconds until `key` may try again, or 0 when it is under its limit. Does not count an attempt. */
  retryAfter(key: string, now = Date.now()): number {
    const entry = this.#hits.get(key);
    if (!entry || entry.resetAt <= now) return 0;
    return entry.count >= this.#limit ? Math.ceil((entry.resetAt - now) / 1000) : 0;
  }

  /** Counts one attempt against `key`. */
  hit(key: string, now = Date.now()): void {
    const entry = this.#hits.get(key);
    if (!entry || entry.resetAt <= now) {
      this.#hits.set(key, { count: 1, resetAt: now + this.#windowMs });
      if (this.#hits.size > 10_000) this.#sweep(now);
      return;
    }
    entry.count++;
  }

  reset(key: string): void {
    this.#hits.delete(key);
  }

  #sweep(now: number): void {
    for (const [key, entry] of this.#hits) if (entry.resetAt <= now) this.#hits.delete(key);
  }
}
