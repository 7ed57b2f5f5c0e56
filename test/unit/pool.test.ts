/** The Piscina pool: how a report's slugs are batched, and that the pool returns what the main thread computes. */
import { afterAll, describe, expect, it } from 'vitest';
import { validateSubmission } from '../../schema/submission.ts';
import { ANALYSIS_SLUGS } from '../../worker/engine/registry.ts';
import { normaliseSubmission } from '../../worker/normalise.ts';
import { AnalysisPool, batchSlugs } from '../../worker/pool.ts';
import { loadFixture } from '../helpers/engineFixtures.ts';

describe('batchSlugs', () => {
  it('splits into contiguous batches of near-equal size, in order, each slug once', () => {
    const slugs = Array.from({ length: 7 }, (_, i) => `s${i}`);
    expect(batchSlugs(slugs, 2)).toEqual([
      ['s0', 's1', 's2', 's3'],
      ['s4', 's5', 's6'],
    ]);
    expect(batchSlugs(slugs, 3)).toEqual([['s0', 's1', 's2'], ['s3', 's4', 's5'], ['s6']]);
    expect(batchSlugs(slugs, 1)).toEqual([slugs]);
    expect(batchSlugs(slugs, 20)).toEqual(slugs.map((slug) => [slug]));
    expect(batchSlugs(slugs, 0)).toEqual([slugs]);
  });

  it('covers every analysis slug exactly once for any thread count', () => {
    for (const parts of [1, 2, 3, 4, 8, 64]) {
      const batches = batchSlugs(ANALYSIS_SLUGS, parts);
      expect(batches.length).toBeLessThanOrEqual(parts);
      expect(batches.flat()).toEqual([...ANALYSIS_SLUGS]);
    }
  });
});

describe('AnalysisPool', () => {
  const pool = new AnalysisPool(2);
  const inline = new AnalysisPool(0);
  afterAll(() => pool.close());

  it('returns, from two worker threads, exactly what the main thread computes, in the order asked', async () => {
    const validation = validateSubmission(loadFixture('general_new-4y-inconsistent'));
    if (!validation.ok) throw new Error('fixture invalid');
    const json = JSON.stringify(normaliseSubmission(validation.value).report);
    const slugs = [...ANALYSIS_SLUGS].reverse();
    const [pooled, local] = await Promise.all([pool.compute(json, slugs), inline.compute(json, slugs)]);
    expect(pooled.map((item) => item.slug)).toEqual(slugs);
    expect(pooled).toEqual(local);
  });
});
