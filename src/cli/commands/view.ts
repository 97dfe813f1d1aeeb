import type { Command } from 'commander';
import { ioOf } from '../io.js';

/** `qitos view <trace> [traceB] [-o file.html]`: one self-contained HTML page of a run, or of two runs side by side. */
export function registerViewCommand(program: Command): void {
  program
    .command('view')
    .description('render a run (or two runs side by side, differences marked) as one self-contained HTML file')
    .argument('<trace>', 'trace folder')
    .argument('[traceB]', 'second trace folder: compare side by side')
    .option(
      '-o, --output <file.html>',
      'where to write the page (default: <trace>/view.html, or ./qitos-diff-<A>-vs-<B>.html for two)',
    )
    .option('--json', 'print where the page was written as JSON')
    .addHelpText(
      'after',
      '\nExample:\n  $ qitos view traces/20250101T120000-abc123 -o run.html\n  $ qitos view traces/run-a traces/run-b -o diff.html\n',
    )
    .action(async function (
      this: Command,
      pathA: string,
      pathB: string | undefined,
      flags: { output?: string; json?: boolean },
    ) {
      const { viewAction } = await import('./view-action.js');
      await viewAction(ioOf(this), pathA, pathB, flags);
    });
}
