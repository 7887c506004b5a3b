import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: keep workers few so process-spawning tests are not starved.
    maxWorkers: 2,
    // The default output, then one line per optional check that was skipped and why (docs/testing.md).
    reporters: ['default', './test/helpers/optional-reporter.ts'],
  },
});
