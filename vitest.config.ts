import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Integration tests share one PostgreSQL server; two cores make more parallel files slower, not faster.
    maxWorkers: 2,
  },
});
