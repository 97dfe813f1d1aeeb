import { writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import {
  RateLimiter,
  parseGridAxis,
  parseRateLimit,
  renderSweep,
  runSuite,
  sweepCells,
  sweepReport,
  type SweepCellRun,
} from '../../bench/index.js';
import { TrialSlots } from '../../bench/trial-slots.js';
import { checkRunFolder, defaultConcurrency } from '../../bench/run-suite.js';
import { findBaseline } from '../../bench/sweep-grid.js';
import { sweepCsv } from '../../bench/sweep-report.js';
import { writeJsonAtomic } from '../../bench/run-info.js';
import { watchStopSignals } from '../../engine/signal-watcher.js';
import { AppError } from '../../app/app-error.js';
import { EXIT_INTERRUPTED } from '../../app/exit-codes.js';
import type { CliIO } from '../io.js';
import { openBenchSuite, userErrors, userErrorsAsync } from '../../app/bench-run.js';
import { suiteProviders } from '../../app/suite-providers.js';
import type { BenchSweepFlags } from './command-flags.js';

/**
 * What `qitos bench sweep` does: one bench run per cell of the grid (the cross product of the `--grid` axes), each
 * in its own folder under `--out`, all cells' trials through one pool of `--concurrency` slots; then a table of
 * every cell with its comparison against the baseline cell. Running it again resumes: a complete cell is left as
 * it is and a partial one is continued, both through the resume check of `bench run` (same settings, or
 * `--force-resume`).
 */
export async function benchSweepAction(io: CliIO, suitePath: string, flags: BenchSweepFlags): Promise<void> {
  const grid = userErrors(() => flags.grid.map(parseGridAxis));
  const cells = userErrors(() => sweepCells(grid));
  const baseline = userErrors(() => findBaseline(cells, flags.baseline));
  const rateLimit = flags.rateLimit !== undefined ? userErrors(() => parseRateLimit(flags.rateLimit!)) : undefined;
  const { suite, prepare } = await openBenchSuite(io, suitePath, flags, suiteProviders());
  const out = resolve(io.cwd, flags.out);
  const shownOut = relative(io.cwd, out) || '.';

  // Every cell is prepared and checked before any runs: a bad value or a folder with other settings stops the
  // sweep before a trial is spent.
  const prepared = [];
  for (const cell of cells) {
    const set = [...(flags.set ?? []), ...cell.settings.map((s) => `${s.key}=${s.value}`)];
    const options = await prefixed(cell.label, () => prepare({ ...flags, set }));
    const dir = join(out, cell.name);
    const full = { ...options, outDir: dir, resume: true, forceResume: flags.forceResume, epochs: flags.epochs };
    await prefixed(cell.label, () => checkRunFolder(full));
    prepared.push({ cell, dir, options: full });
  }

  const concurrency = flags.concurrency ?? defaultConcurrency();
  const slots = new TrialSlots(concurrency);
  const rateLimiter = rateLimit ? new RateLimiter(rateLimit) : undefined;
  const controller = new AbortController();
  const unwatch = watchStopSignals(() => {
    io.err(
      '\ninterrupted: in-flight trials are aborted and not recorded; finished ones are kept. Run the sweep again to resume.\n',
    );
    controller.abort();
  });
  const quiet = flags.progress === false || flags.json;
  let finished = 0;
  let runs: SweepCellRun[];
  try {
    runs = await Promise.all(
      prepared.map(async (p): Promise<SweepCellRun> => {
        const result = await prefixed(p.cell.label, () =>
          runSuite({
            ...p.options,
            concurrency,
            slots,
            ...(rateLimiter ? { rateLimiter } : {}),
            signal: controller.signal,
          }),
        );
        finished++;
        if (!quiet) {
          const s = result.summary;
          const what =
            result.ran === 0 && s.complete
              ? 'already complete'
              : `${result.ran} run${result.skipped ? `, ${result.skipped} resumed` : ''}`;
          io.err(
            `[${finished}/${cells.length}] ${p.cell.label}: ${s.trials}/${s.expectedTrials} trials ` +
              `(${what}), pass ${(s.passRate.rate * 100).toFixed(1)}%\n`,
          );
        }
        return { cell: p.cell, dir: p.dir, shown: join(shownOut, p.cell.name), summary: result.summary };
      }),
    );
  } catch (err) {
    controller.abort();
    throw err;
  } finally {
    unwatch();
  }
  const report = userErrors(() =>
    sweepReport({ suite: suite.name, grid, runs, baseline, seed: flags.seed, resamples: flags.resamples }),
  );
  writeJsonAtomic(join(out, 'sweep.json'), report);
  if (flags.csv) {
    const csv = resolve(io.cwd, flags.csv);
    try {
      writeFileSync(csv, sweepCsv(report));
    } catch (err) {
      throw new AppError(`--csv ${flags.csv}: cannot write: ${(err as Error).message}`);
    }
  }
  io.out(
    flags.json
      ? JSON.stringify(report, null, 2) + '\n'
      : renderSweep(report) + `results: ${join(shownOut, 'sweep.json')}${flags.csv ? `, ${flags.csv}` : ''}\n`,
  );
  io.exitCode = controller.signal.aborted || runs.some((r) => r.summary.interrupted) ? EXIT_INTERRUPTED : 0;
}

/** Runs `fn`; an error it throws names the cell it is about. */
async function prefixed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  return userErrorsAsync(async () => {
    try {
      return await fn();
    } catch (err) {
      const e = err as Error;
      e.message = `cell ${label}: ${e.message}`;
      throw e;
    }
  });
}
