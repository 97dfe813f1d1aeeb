import type { Command } from 'commander';
import { ioOf } from '../io.js';
import type { DiffFlags } from './command-flags.js';
import { positiveInt } from '../option-parsers.js';

/** `qitos diff <traceA> <traceB>`: where two runs part, step by step. */
export function registerDiffCommand(program: Command): void {
  program
    .command('diff')
    .description('compare two runs step by step: the first step and phase where they part, a per-step table, totals')
    .argument('<traceA>', 'first trace folder')
    .argument('<traceB>', 'second trace folder')
    .option('--all', 'list every step in the table, not only the ones that differ')
    .option('--limit <n>', 'at most this many table rows', positiveInt, 200)
    .option('--exit-code', 'exit 1 when the runs differ (like git diff --exit-code)')
    .option('--json', 'print the comparison as JSON')
    .addHelpText(
      'after',
      '\nExample:\n  $ qitos diff traces/run-a traces/run-b\n  $ qitos diff traces/parent traces/replay --json\n',
    )
    .action(async function (this: Command, pathA: string, pathB: string, flags: DiffFlags) {
      const { diffAction } = await import('./diff-action.js');
      await diffAction(ioOf(this), pathA, pathB, flags);
    });
}
