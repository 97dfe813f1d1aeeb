import type { Command } from 'commander';
import { ioOf } from '../io.js';

/** `qitos tau-bench fetch`: installs the pinned upstream tau-bench files (data, tasks, wiki, rules, tool schemas). */
export function registerTauBenchCommand(program: Command): void {
  const tau = program.command('tau-bench').description('tau-bench (sierra-research/tau-bench, MIT): install its data');
  tau
    .command('fetch')
    .description(
      'download the pinned upstream tau-bench files (or copy them from a local checkout), check every sha256, store them',
    )
    .option('--from <dir>', 'a local checkout of sierra-research/tau-bench (no network)')
    .option(
      '--data-dir <dir>',
      'where to store them (default: $QITOS_TAU_BENCH_DATA, else $XDG_CACHE_HOME/qitos/tau-bench/<commit>)',
    )
    .addHelpText(
      'after',
      '\nExample:\n  $ qitos tau-bench fetch\n  $ qitos tau-bench fetch --from ../tau-bench --data-dir ./tau-data\n',
    )
    .action(async function (this: Command, opts: { from?: string; dataDir?: string }) {
      const { tauBenchFetchAction } = await import('./tau-bench-action.js');
      await tauBenchFetchAction(ioOf(this), opts);
    });
}
