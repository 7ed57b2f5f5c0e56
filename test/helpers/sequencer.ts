/**
 * The order vitest hands test files to its two workers: the longest first, so that no long file starts last
 * while the other worker has run out of files (longest processing time first).
 *
 * How long a file takes is what the last run on this machine took (vitest's results cache) or the estimate
 * below, whichever is longer; the quick files without an estimate come last, largest first. Without the estimates a clean clone (CI) has no cache
 * and vitest's own sequencer runs the largest files first: a small file of slow processes (cli, fuzz,
 * crash-recovery) started last and kept one worker busy minutes after the other had finished.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds a file took in a whole run on the 2-core VM (rounded; only the order matters). */
const ESTIMATES: Record<string, number> = {
  'test/e2e/shareCommittee.test.ts': 180,
  'test/e2e/sharePageReading.test.ts': 110,
  'test/integration/processes.test.ts': 130,
  'test/integration/cli.test.ts': 100,
  'test/e2e/sharePage.test.ts': 95,
  'test/e2e/industryBenchmark.test.ts': 75,
  'test/integration/fuzz.test.ts': 75,
  'test/integration/crash-recovery.test.ts': 70,
  'test/integration/webhooks.test.ts': 65,
  'test/integration/graphql-parity.test.ts': 55,
  'test/integration/webhook-processes.test.ts': 50,
  'test/integration/console-services.test.ts': 50,
  'test/integration/openapi-client.test.ts': 50,
  'test/e2e/console-points.test.ts': 45,
  'test/integration/reports.test.ts': 45,
  'test/integration/console-password.test.ts': 40,
  'test/integration/ai-crash-recovery.test.ts': 38,
  'test/integration/lifecycle.test.ts': 35,
  'test/integration/benchmarks.test.ts': 30,
  'test/integration/graphql-ai.test.ts': 30,
  'test/integration/console-reports.test.ts': 30,
  'test/integration/rate-limits.test.ts': 30,
  'test/integration/storage.test.ts': 30,
  'test/integration/graphql-http-audit.test.ts': 30,
  'test/integration/operations.test.ts': 28,
  'test/integration/openapi.test.ts': 28,
  'test/unit/static.test.ts': 28,
  'test/e2e/webhooksPage.test.ts': 25,
  'test/integration/api-conventions.test.ts': 24,
  'test/e2e/importPage.test.ts': 22,
  'test/e2e/console.test.ts': 22,
};

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // vitest's order first (its fallback: the largest files first), then a stable sort by expected duration.
    const sorted = await super.sort(files);
    // The larger of the two: a run filtered by test name (-t) caches a file's duration as next to nothing.
    const expected = (spec: TestSpecification) =>
      Math.max(
        (this.ctx.cache.getTestSpecificationResult(spec)?.duration ?? 0) / 1000,
        ESTIMATES[relative(spec.project.config.root, spec.moduleId).replaceAll('\\', '/')] ?? 0,
      );
    return sorted
      .map((spec) => ({ spec, seconds: expected(spec) }))
      .sort((a, b) => b.seconds - a.seconds)
      .map(({ spec }) => spec);
  }
}
