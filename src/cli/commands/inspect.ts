import type { Command } from 'commander';
import { ioOf } from '../io.js';

/** `qitos inspect <trace>`: the manifest summary and the failures of one run. */
export function registerInspectCommand(program: Command): void {
  program
    .command('inspect')
    .description('print the manifest summary and the failures of a run')
    .argument('<trace>', 'trace folder (traces/<runId>)')
    .option('--json', 'print the summary as JSON')
    .addHelpText('after', '\nExample:\n  $ qitos inspect traces/20250101T120000-abc123\n')
    .action(async function (this: Command, path: string, opts: { json?: boolean }) {
      const { inspectAction } = await import('./inspect-action.js');
      await inspectAction(ioOf(this), path, opts);
    });
}
