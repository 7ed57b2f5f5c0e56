/** The Piscina pool: how a report's slugs are batched, and that the pool returns what the main thread computes. */
import { afterAll, describe, expect, it } from 'vitest';
import { validateSubmission } from '../../schema/submission.ts';
import { computeItems, withCoreRiskInsight } from '../../worker/computed.ts';
import { ANALYSIS_SLUGS, assembleReportItems, computeAnalysis } from '../../worker/engine/registry.ts';
import { parseUtf8Json } from '../../worker/jsonBytes.ts';
import { normaliseSubmission } from '../../worker/normalise.ts';
import { AnalysisPool, batchSlugs, fanOut } from '../../worker/pool.ts';
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

describe('fanOut', () => {
  it('gives one batch per idle thread, and one batch when no thread is idle', () => {
    expect(fanOut(2, 0)).toBe(2);
    expect(fanOut(2, 1)).toBe(1);
    expect(fanOut(2, 2)).toBe(1);
    expect(fanOut(8, 3)).toBe(5);
    expect(fanOut(8, 20)).toBe(1);
    expect(fanOut(1, 0)).toBe(1);
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

  it('answers each batch with its items’ sp_result as UTF-8 JSON views of one buffer of their exact size', async () => {
    const validation = validateSubmission(loadFixture('general_new-3y'));
    if (!validation.ok) throw new Error('fixture invalid');
    const { report } = normaliseSubmission(validation.value);
    const direct = computeAnalysis(report, ANALYSIS_SLUGS);
    const items = await new AnalysisPool(0).compute(JSON.stringify(report), ANALYSIS_SLUGS);
    const buffers = new Set(items.map((item) => item.spResultUtf8.buffer));
    expect(buffers.size).toBe(1);
    const total = items.reduce((sum, item) => sum + item.spResultUtf8.byteLength, 0);
    expect([...buffers][0]!.byteLength).toBe(total);
    for (const [i, item] of items.entries())
      expect(parseUtf8Json(item.spResultUtf8)).toEqual(direct[i]!.sp_result);
    // The Chinese labels survive the encoding: the bytes are UTF-8, not Latin-1 or escaped.
    expect(Buffer.from(items[0]!.spResultUtf8).toString('utf8')).toMatch(/[\u4e00-\u9fff]/);
  });

  it('fans a report out across an idle pool, and sends reports that arrive while it is busy as one batch', async () => {
    const validation = validateSubmission(loadFixture('general_new-3y'));
    if (!validation.ok) throw new Error('fixture invalid');
    const json = JSON.stringify(normaliseSubmission(validation.value).report);
    const expected = await inline.compute(json, ANALYSIS_SLUGS);

    const alone = pool.batchesRun;
    expect(await pool.compute(json, ANALYSIS_SLUGS)).toEqual(expected);
    expect(pool.batchesRun - alone).toBe(2);

    // Eight reports at once: the first finds both threads idle (two batches), the other seven find them busy.
    const burst = pool.batchesRun;
    const results = await Promise.all(Array.from({ length: 8 }, () => pool.compute(json, ANALYSIS_SLUGS)));
    for (const items of results) expect(items).toEqual(expected);
    expect(pool.batchesRun - burst).toBe(9);

    // Idle again: the next report is fanned out again.
    const after = pool.batchesRun;
    await pool.compute(json, ANALYSIS_SLUGS);
    expect(pool.batchesRun - after).toBe(2);
  });

  it('hands a busy thread its next batch at once, so it does not wait for the main thread between two', async () => {
    const validation = validateSubmission(loadFixture('general_new-3y'));
    if (!validation.ok) throw new Error('fixture invalid');
    const json = JSON.stringify(normaliseSubmission(validation.value).report);
    const one = new AnalysisPool(1);
    try {
      const expected = await one.compute(json, ANALYSIS_SLUGS); // the thread is up
      const first = one.compute(json, ANALYSIS_SLUGS);
      const second = one.compute(json, ANALYSIS_SLUGS);
      // Both batches are the thread's already: none waits in the pool's queue for the first one's result to
      // reach this thread (which, busy, could not take it yet).
      expect(one.stats().queueSize).toBe(0);
      const third = one.compute(json, ANALYSIS_SLUGS);
      expect(one.stats().queueSize).toBe(1); // two at most: a third waits for a thread to be free
      for (const items of await Promise.all([first, second, third])) expect(items).toEqual(expected);
    } finally {
      await one.close();
    }
  });
});

describe('the core risk insight on the job path', () => {
  it('is the same from the pool items (computeItems + withCoreRiskInsight) as from the engine outputs', () => {
    const names = ['general_new-3y', 'general_new-4y-inconsistent', 'general_old-5y-ai'] as const;
    for (const name of names) {
      const validation = validateSubmission(loadFixture(name));
      if (!validation.ok) throw new Error(`${name} is invalid`);
      const { report } = normaliseSubmission(validation.value);
      const direct = assembleReportItems(computeAnalysis(report, ANALYSIS_SLUGS))[0]!;
      const viaJob = withCoreRiskInsight(computeItems(JSON.stringify(report), ANALYSIS_SLUGS))[0]!;
      expect(viaJob.slug).toBe(direct.slug);
      // The verdict, data gaps and strengths need the items' figures, not only their risk items.
      expect(parseUtf8Json(viaJob.spResultUtf8), name).toEqual(direct.sp_result);
      expect(viaJob.risk_items, name).toEqual(direct.risk_items);
    }
  });
});
