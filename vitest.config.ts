import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';
import { COMPILE_CACHE_DIR } from './server/config.ts';
import { LongestFirstSequencer } from './test/helpers/sequencer.ts';

export default defineConfig({
  // graphql 17 ships ESM and CJS builds. Node resolves every import of it to the ESM build ("module-sync"),
  // as do the dependencies vitest loads natively (Yoga, Pothos); without this, vitest resolves the bare
  // import of our own (transformed) files with "node" to the CJS build — a second graphql instance whose
  // instanceof checks reject the schema's types.
  //
  // Not "module": vitest passes these conditions to Node itself (--conditions), where "module" made even a CJS
  // require pick a package's bundler-only ESM build (prom-client's require of @opentelemetry/api broke on it).
  ssr: {
    resolve: {
      conditions: ['module-sync', ...defaultServerConditions.filter((condition) => condition !== 'module')],
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Builds web/ into web/dist when it is missing or stale (the page and browser tests serve it).
    globalSetup: ['test/helpers/webBuild.ts'],
    // Node's compile cache for what the tests start from a module loaded by Node itself — the analysis pool's worker
    // threads of every test file, and the child services and CLI runs (which inherit this environment), from their
    // first module on — as main.ts gives the service's (docs/operations.md, Start-up).
    env: { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE || COMPILE_CACHE_DIR },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Integration tests share one PostgreSQL server; two cores make more parallel files slower, not faster.
    maxWorkers: 2,
    // The longest files first (the last run's durations, else test/helpers/sequencer.ts's estimates), so that
    // both workers finish together.
    sequence: { sequencer: LongestFirstSequencer },
  },
});
