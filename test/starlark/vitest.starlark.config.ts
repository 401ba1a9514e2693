import { defineConfig } from 'vitest/config';

// Runs only the Starlark tests, without the repository's Redis global setup.
export default defineConfig({
  test: {
    include: ['test/starlark/**/*.test.ts'],
    testTimeout: 60_000,
    pool: 'forks',
  },
});
