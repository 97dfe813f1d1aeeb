import type { Command } from 'commander';
import { ioOf } from '../io.js';

/** `qitos runs [dir]`: lists the runs under a traces folder. */
export function registerRunsCommand(program: Command): void {
  program
    .command('runs')
    .description('list the runs under a traces folder (newest first)')
    .argument('[dir]', 'folder holding one trace folder per run', 'traces')
    .option('--json', 'print the list as JSON')
    .addHelpText('after', '\nExample:\n  $ qitos runs traces\n  $ qitos runs traces --json | jq ".[0].runId"\n')
    .action(async function (this: Command, dir: string, opts: { json?: boolean }) {
      const { runsAction } = await import('./runs-action.js');
      await runsAction(ioOf(this), dir, opts);
    });
}
