/**
 * The Piscina pool that computes analysis items off the main thread. One pool per process, sized from the
 * CPUs and shared by every job. A report's slugs are split into one batch per idle thread (at least one), so
 * the statements cross to a worker once per batch rather than once per slug — as the report's JSON text (see
 * computed.ts).
 *
 * Why per idle thread: fanning out shortens a report's latency only when there are threads with nothing to do.
 * When every thread is busy the batches just queue behind each other, and each extra batch costs its own copy
 * and parse of the report and recomputes figures the other batches also compute (fan-out across two threads:
 * 12% more engine instructions than one batch). So a report that arrives at an idle pool is fanned out across
 * it, and one that arrives at a busy pool goes as one batch: the lowest latency at low load, the most reports
 * per second at full load.
 */
import { Piscina } from 'piscina';
import { type ComputedItem, computeItems } from './computed.ts';
import type { AnalysisTask } from './engine/analysis.worker.ts';

/**
 * Splits `slugs` into at most `parts` contiguous batches of near-equal size, in catalogue order. Contiguous, not
 * dealt round-robin: neighbouring modules (one section, one statement) read the same lines and share the per-line
 * figures a context memoises, so each batch recomputes less of what another batch also computes (measured with
 * callgrind: 12% more engine instructions per report than one batch, against 15% for round-robin batches).
 */
export function batchSlugs(slugs: readonly string[], parts: number): string[][] {
  const count = Math.max(1, Math.min(parts, slugs.length));
  const size = Math.ceil(slugs.length / count);
  const batches: string[][] = [];
  for (let start = 0; start < slugs.length; start += size) batches.push(slugs.slice(start, start + size));
  return batches;
}

/**
 * Batches each pool thread holds: the one it computes and the next, which it starts as soon as it is done. With one
 * at a time, the next batch waited for the main thread to take the finished one's result and post it, while that
 * thread parsed submissions: a pool thread stood idle for each (machine 9–15 % idle while submissions arrived, 7–9 %
 * with two; docs/performance.md, eighteenth stop). The pool is backlogged when every thread holds this many.
 */
const BATCHES_PER_THREAD = 2;

/** Batches for a report: one per thread not already busy with a batch, at least one. */
export function fanOut(threads: number, batchesInFlight: number): number {
  return Math.max(1, threads - batchesInFlight);
}

export class AnalysisPool {
  readonly #pool: Piscina<AnalysisTask, ComputedItem[]> | null;
  /** Worker threads; 0 computes on the calling thread (for comparison in the benchmark, and debugging). */
  readonly threads: number;
  /** Batches handed to the pool and not yet settled (running or queued). */
  #inFlight = 0;
  /** Batches handed to the pool since it started (settled or not). */
  #batchesRun = 0;
  /** Called when the pool stops being backlogged (onDrained). */
  readonly #drained = new Set<() => void>();

  constructor(threads: number) {
    this.threads = threads;
    this.#pool =
      threads === 0
        ? null
        : new Piscina({
            filename: new URL('./engine/analysis.worker.ts', import.meta.url).href,
            minThreads: threads,
            maxThreads: threads,
            // Workers stay up for the life of the process: starting one costs far more than a report.
            idleTimeout: Number.POSITIVE_INFINITY,
            concurrentTasksPerWorker: BATCHES_PER_THREAD,
          });
  }

  /** Batches handed to the pool so far (for tests and diagnostics). */
  get batchesRun(): number {
    return this.#batchesRun;
  }

  /**
   * Whether the pool has work waiting for every thread: as many batches queued as it has threads, besides those
   * running. A report claimed now would only wait behind them (the analysis dispatcher leaves it in the queue).
   */
  get backlogged(): boolean {
    return this.threads > 0 && this.#inFlight >= BATCHES_PER_THREAD * this.threads;
  }

  /** Calls `listener` each time the pool stops being backlogged. */
  onDrained(listener: () => void): void {
    this.#drained.add(listener);
  }

  /**
   * Computes `slugs` for a report given as the JSON text of a NormalisedReport, fanned out across the pool's idle
   * threads; results come back in the order asked.
   */
  async compute(reportJson: string, slugs: readonly string[]): Promise<ComputedItem[]> {
    const pool = this.#pool;
    if (!pool) return computeItems(reportJson, slugs);
    const batches = batchSlugs(slugs, fanOut(this.threads, this.#inFlight));
    this.#inFlight += batches.length;
    this.#batchesRun += batches.length;
    const run = async (batch: string[]) => {
      try {
        return await pool.run({ reportJson, slugs: batch });
      } finally {
        this.#inFlight--;
        if (this.#inFlight === BATCHES_PER_THREAD * this.threads - 1)
          for (const listener of this.#drained) listener();
      }
    };
    const results = await Promise.all(batches.map(run));
    const bySlug = new Map(results.flat().map((item) => [item.slug, item]));
    return slugs.map((slug) => {
      const output = bySlug.get(slug);
      if (!output) throw new Error(`the analysis pool returned no result for "${slug}"`);
      return output;
    });
  }

  /** Piscina's utilisation (0–1, busy time over capacity) and tasks waiting for a thread; for /metrics. */
  stats(): { utilisation: number; queueSize: number } {
    return { utilisation: this.#pool?.utilization ?? 0, queueSize: this.#pool?.queueSize ?? 0 };
  }

  async close(): Promise<void> {
    await this.#pool?.destroy();
  }
}
