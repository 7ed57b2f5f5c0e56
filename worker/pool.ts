/**
 * The Piscina pool that computes analysis items off the main thread. One pool per process, sized from the
 * CPUs and shared by every job. A report's slugs are split into one batch per thread, so the statements
 * are cloned to a worker once per batch rather than once per slug.
 */
import { Piscina } from 'piscina';
import { computeAnalysis } from './engine/registry.ts';
import type { AnalysisOutput, NormalisedReport } from './types.ts';

export interface AnalysisTask {
  report: NormalisedReport;
  slugs: string[];
}

/** Splits `slugs` into at most `parts` batches of near-equal size, keeping each batch in catalogue order. */
export function batchSlugs(slugs: readonly string[], parts: number): string[][] {
  const count = Math.max(1, Math.min(parts, slugs.length));
  const batches: string[][] = Array.from({ length: count }, () => []);
  slugs.forEach((slug, i) => {
    batches[i % count]!.push(slug);
  });
  return batches.filter((batch) => batch.length > 0);
}

export class AnalysisPool {
  readonly #pool: Piscina<AnalysisTask, AnalysisOutput[]> | null;
  /** Worker threads; 0 computes on the calling thread (for comparison in the benchmark, and debugging). */
  readonly threads: number;

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
          });
  }

  /** Computes `slugs` for `report`, fanned out across the pool; results come back in the order asked. */
  async compute(report: NormalisedReport, slugs: readonly string[]): Promise<AnalysisOutput[]> {
    const pool = this.#pool;
    if (!pool) return computeAnalysis(report, slugs);
    const batches = batchSlugs(slugs, this.threads);
    const results = await Promise.all(batches.map((batch) => pool.run({ report, slugs: batch })));
    const bySlug = new Map(results.flat().map((output) => [output.slug, output]));
    return slugs.map((slug) => {
      const output = bySlug.get(slug);
      if (!output) throw new Error(`the analysis pool returned no result for "${slug}"`);
      return output;
    });
  }

  async close(): Promise<void> {
    await this.#pool?.destroy();
  }
}
