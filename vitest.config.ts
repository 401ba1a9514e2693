import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores on CI: more parallel files only adds contention with the Redis server and workers.
    maxWorkers: 2,
    reporters: ['default', './test/support/count-reporter.ts'],
  },
});
