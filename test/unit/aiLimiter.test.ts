/**
 * The model-call limiter: a global cap, a per-report cap, fair admission of a report that arrives behind a
 * large one, and waiting calls that give up when the run's deadline passes.
 */
import { describe, expect, it } from 'vitest';
import { ModelCallLimiter } from '../../server/ai/limiter.ts';

/** A task the test finishes by hand, recording when it started. */
function gate(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return {
    task: async () => {
      log.push(name);
      await done;
      return name;
    },
    finish: () => finish(),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('ModelCallLimiter', () => {
  it('holds at most the global cap in flight, and at most the per-report cap for one report', async () => {
    const limiter = new ModelCallLimiter(3, 2);
    const started: string[] = [];
    const gates = Array.from({ length: 6 }, (_, i) => gate(started, `a${i}`));
    const runs = gates.map((g) => limiter.run('A', g.task));
    await tick();
    expect(started).toEqual(['a0', 'a1']);
    expect(limiter.active).toBe(2);
    expect(limiter.activeFor('A')).toBe(2);
    gates[0]!.finish();
    await tick();
    expect(started).toEqual(['a0', 'a1', 'a2']);
    for (const g of gates) g.finish();
    expect(await Promise.all(runs)).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'a5']);
    expect(limiter.active).toBe(0);
  });

  it('lets a report that arrives behind a large one start before the large one has finished', async () => {
    const limiter = new ModelCallLimiter(4, 2);
    const started: string[] = [];
    const big = Array.from({ length: 43 }, (_, i) => gate(started, `big${i}`));
    const bigRuns = big.map((g) => limiter.run('big', g.task));
    await tick();
    const small = [gate(started, 'small0'), gate(started, 'small1')];
    const smallRuns = small.map((g) => limiter.run('small', g.task));
    await tick();
    // The large report holds only its share: the small one starts at once, with 41 of the 43 still queued.
    expect(started).toEqual(['big0', 'big1', 'small0', 'small1']);
    expect(limiter.active).toBe(4);
    for (const g of [...big, ...small]) g.finish();
    await Promise.all([...bigRuns, ...smallRuns]);
    expect(started).toHaveLength(45);
  });

  it('interleaves several reports instead of serving them one after another', async () => {
    const limiter = new ModelCallLimiter(2, 1);
    const order: string[] = [];
    const run = (report: string, i: number) =>
      limiter.run(report, async () => {
        order.push(`${report}${i}`);
        await tick();
      });
    await Promise.all([0, 1, 2].flatMap((i) => [run('A', i), run('B', i)]));
    expect(order).toEqual(['A0', 'B0', 'A1', 'B1', 'A2', 'B2']);
  });

  it('drops a waiting call when its signal aborts, and the slot goes to the next one', async () => {
    const limiter = new ModelCallLimiter(1, 1);
    const started: string[] = [];
    const first = gate(started, 'first');
    const firstRun = limiter.run('A', first.task);
    const controller = new AbortController();
    const waiting = limiter.run('B', gate(started, 'never').task, controller.signal);
    const third = gate(started, 'third');
    const thirdRun = limiter.run('C', third.task);
    await tick();
    controller.abort(new Error('deadline'));
    await expect(waiting).rejects.toThrow('deadline');
    first.finish();
    third.finish();
    await Promise.all([firstRun, thirdRun]);
    expect(started).toEqual(['first', 'third']);
    expect(limiter.active).toBe(0);
  });

  it('releases the slots of a task that throws', async () => {
    const limiter = new ModelCallLimiter(1, 1);
    await expect(
      limiter.run('A', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await limiter.run('A', async () => 'next')).toBe('next');
  });
});
