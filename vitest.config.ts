import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One fast-check seed for the whole suite, printed once (FC_SEED=<seed> reruns it).
    globalSetup: ['test/helpers/fc-global-setup.ts'],
    setupFiles: ['test/helpers/fc-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The JSON report is what .ci/run reads for its one-line summary.
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
  },
});
