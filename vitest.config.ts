import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // graphql 17 ships ESM and CJS builds. Node resolves every import of it to the ESM build ("module-sync"),
  // as do the dependencies vitest loads natively (Yoga, Pothos); without this, vitest resolves the bare
  // import of our own (transformed) files with "node" to the CJS build — a second graphql instance whose
  // instanceof checks reject the schema's types.
  // Not "module": bundler-only ESM builds (e.g. @opentelemetry/api's, which prom-client loads, with
  // extension-less imports) would be loaded by Node and fail.
  ssr: {
    resolve: { conditions: ['module-sync', ...defaultServerConditions.filter((c) => c !== 'module')] },
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Builds web/ into web/dist when it is missing or stale (the page and browser tests serve it).
    globalSetup: ['test/helpers/webBuild.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Integration tests share one PostgreSQL server; two cores make more parallel files slower, not faster.
    maxWorkers: 2,
  },
});
