import { defineConfig } from 'vitest/config';

/** The browser journeys: Chromium, a whole `steward start` and OpenCode each. */
const BROWSER = [
  'test/ui/journey.test.ts',
  'test/ui/setup-token.test.ts',
  'test/ui/schedule-run-once.test.ts',
  'test/ui/activity.test.ts',
  'test/ui/review.test.ts',
  'test/ui/versions.test.ts',
  'test/ui/screens.test.ts',
  'test/ui/shell.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores on CI: more parallel files only adds contention with the Redis server and workers.
    maxWorkers: 2,
    reporters: ['default', './test/support/count-reporter.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'steward', include: ['test/**/*.test.ts'], exclude: BROWSER },
      },
      {
        // After everything else: a browser and a whole deployment beside timing-sensitive tests
        // (thread scheduling, leases) would only make those flaky on two cores.
        extends: true,
        test: { name: 'browser', include: BROWSER, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
