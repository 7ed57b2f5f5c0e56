/**
 * Caps model calls in flight: at most `global` in the whole process and at most `perGroup` for one group (a
 * report). A call first takes a slot of its report, then a global slot, each in arrival order. A report's
 * other calls therefore queue behind their own report's share, and the global queue never holds more than
 * `perGroup` calls of one report — a report that arrives while a 43-item report is running gets a slot
 * after at most (reports already waiting × perGroup) calls, not after all 43.
 */

class Semaphore {
  readonly #capacity: number;
  #inUse = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get inUse(): number {
    return this.#inUse;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** Resolves once a slot is held; rejects (holding nothing) if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#inUse < this.#capacity) {
      this.#inUse++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        this.#inUse++;
        resolve();
      };
      const onAbort = () => {
        const index = this.#waiting.indexOf(grant);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(grant);
    });
  }

  release(): void {
    this.#inUse--;
    const next = this.#waiting.shift();
    if (next) next();
  }
}

export class ModelCallLimiter {
  readonly global: number;
  readonly perGroup: number;
  readonly #globalSlots: Semaphore;
  readonly #groups = new Map<string, Semaphore>();

  constructor(global: number, perGroup: number) {
    this.global = global;
    this.perGroup = Math.min(perGroup, global);
    this.#globalSlots = new Semaphore(global);
  }

  /** Calls in flight now, in all groups. */
  get active(): number {
    return this.#globalSlots.inUse;
  }

  /** Calls in flight now for one group. */
  activeFor(group: string): number {
    return this.#groups.get(group)?.inUse ?? 0;
  }

  /**
   * Runs `task` once a slot of `group` and a global slot are free. When `signal` aborts while waiting, the
   * task never starts and the signal's reason is thrown.
   */
  async run<T>(group: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    let slots = this.#groups.get(group);
    if (!slots) {
      slots = new Semaphore(this.perGroup);
      this.#groups.set(group, slots);
    }
    const groupSlots = slots;
    try {
      await groupSlots.acquire(signal);
    } catch (error) {
      this.#forget(group, groupSlots);
      throw error;
    }
    try {
      await this.#globalSlots.acquire(signal);
      try {
        return await task();
      } finally {
        this.#globalSlots.release();
      }
    } finally {
      groupSlots.release();
      this.#forget(group, groupSlots);
    }
  }

  /** Drops an idle group's semaphore, so the map holds only reports with calls running or waiting. */
  #forget(group: string, slots: Semaphore): void {
    if (slots.inUse === 0 && slots.waiting === 0 && this.#groups.get(group) === slots)
      this.#groups.delete(group);
  }
}
