/**
 * The model's circuit breaker, one per process (every job and request shares it): a provider outage must cost
 * us a few calls, not every item of every report times its retries.
 *
 * Closed: attempts go out; `threshold` failures in a row (a 5xx, a timeout, a connection error, or a 429 whose
 * call ran out of retries) open it. Open: no attempt goes out until the cool-off ends; then it is half-open and
 * lets exactly one attempt through (the probe) while every other is refused. The probe's success closes it
 * (and resets the cool-off); its failure opens it again with the cool-off doubled, up to `maxCooldownMs`.
 * Attempts that arrive while the probe is out wait for its outcome (`waitForProbe`) rather than being refused:
 * when the provider is back, the report being written when it returns still gets the model's texts.
 * Any success closes it: an answer means the provider is up.
 */
import { aiBreakerState } from '../observability/metrics.ts';

export type BreakerState = 'closed' | 'open' | 'half_open';

const GAUGE: Record<BreakerState, number> = { closed: 0, half_open: 1, open: 2 };

export interface BreakerSettings {
  /** Failures in a row that open the breaker. */
  threshold: number;
  /** First cool-off, ms; doubled each time a probe fails. */
  cooldownMs: number;
  /** Longest cool-off, ms. */
  maxCooldownMs: number;
  /** The clock (tests move it). */
  now?: () => number;
}

/** What `tryAcquire` grants: an ordinary attempt, or the one probe of a half-open breaker. */
export interface BreakerPermit {
  probe: boolean;
}

export class CircuitBreaker {
  readonly #settings: Required<BreakerSettings>;
  #state: BreakerState = 'closed';
  #failures = 0;
  #cooldownMs: number;
  #openUntil = 0;
  #probeInFlight = false;
  /** Times it opened since it was last closed (for logs). */
  #opens = 0;
  #probeWaiters: Array<() => void> = [];

  constructor(settings: BreakerSettings) {
    this.#settings = { now: Date.now, ...settings };
    this.#cooldownMs = settings.cooldownMs;
    aiBreakerState.set(0);
  }

  /** The state now (an open breaker whose cool-off has ended reads half-open). */
  get state(): BreakerState {
    if (this.#state === 'open' && this.#settings.now() >= this.#openUntil) return 'half_open';
    return this.#state;
  }

  /** The cool-off the next opening would last, ms. */
  get cooldownMs(): number {
    return this.#cooldownMs;
  }

  /** May an attempt go out? null when open, or half-open with its probe already out. */
  tryAcquire(): BreakerPermit | null {
    const state = this.state;
    if (state === 'closed') return { probe: false };
    if (state === 'open' || this.#probeInFlight) return null;
    this.#set('half_open');
    this.#probeInFlight = true;
    return { probe: true };
  }

  /** Is a probe out now (others then wait for it)? */
  get probing(): boolean {
    return this.#probeInFlight;
  }

  /** Resolves when the probe out now has its outcome (at once when none is out); rejects if `signal` aborts. */
  waitForProbe(signal?: AbortSignal): Promise<void> {
    if (!this.#probeInFlight) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        this.#probeWaiters = this.#probeWaiters.filter((waiter) => waiter !== done);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#probeWaiters.push(done);
    });
  }

  /** The attempt was answered (valid or not: the provider is up). */
  onSuccess(permit: BreakerPermit): void {
    this.#failures = 0;
    this.#opens = 0;
    this.#cooldownMs = this.#settings.cooldownMs;
    this.#set('closed');
    if (permit.probe) this.#probeDone();
  }

  /** The attempt failed in a way that says the provider is down or overloaded. */
  onFailure(permit: BreakerPermit): void {
    if (permit.probe) {
      this.#cooldownMs = Math.min(this.#cooldownMs * 2, this.#settings.maxCooldownMs);
      this.#open();
      this.#probeDone();
      return;
    }
    // An attempt that went out before the breaker opened says nothing new.
    if (this.#state !== 'closed') return;
    this.#failures++;
    if (this.#failures >= this.#settings.threshold) this.#open();
  }

  /** The attempt ended without an answer for a reason of ours (aborted by the deadline): no verdict. */
  release(permit: BreakerPermit): void {
    if (permit.probe) this.#probeDone();
  }

  #probeDone(): void {
    this.#probeInFlight = false;
    const waiters = this.#probeWaiters;
    this.#probeWaiters = [];
    for (const waiter of waiters) waiter();
  }

  /** For logs: the state, the failures in a row, and the cool-off. */
  describe(): { state: BreakerState; failures: number; cooldown_ms: number; opens: number } {
    return { state: this.state, failures: this.#failures, cooldown_ms: this.#cooldownMs, opens: this.#opens };
  }

  #open(): void {
    this.#opens++;
    this.#openUntil = this.#settings.now() + this.#cooldownMs;
    this.#set('open');
  }

  #set(state: BreakerState): void {
    this.#state = state;
    aiBreakerState.set(GAUGE[state]);
  }
}
