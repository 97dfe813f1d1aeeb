import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Most test time is spent waiting on subprocesses, servers and the browser, not on the CPU: vitest's default (one
    // worker less than the cores: a single worker on 2 cores) left a 2-core machine idle for half of a 12-minute run.
    maxWorkers: Math.max(4, availableParallelism()),
    // Test files share their worker's module graph instead of importing everything anew: on 2 cores that import was
    // 40% of the suite's CPU (313 s -> 213 s for the whole suite, measured side by side on a quiet machine). Tests
    // restore what they change (env variables, spies), and module state is only caches and random-suffixed counters.
    isolate: false,
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
