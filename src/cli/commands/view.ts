import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { ioOf } from '../io.js';
import { loadTrace } from '../trace-loader.js';
import { viewData } from '../view/view-data.js';
import { viewHtml } from '../view/view-html.js';
import { CliError } from '../cli-error.js';

/** `qitos view <trace> [traceB] [-o file.html]`: one self-contained HTML page of a run, or of two runs side by side. */
export function registerViewCommand(program: Command): void {
  program
    .command('view')
    .description('render a run (or two runs side by side, differences marked) as one self-contained HTML file')
    .argument('<trace>', 'trace folder')
    .argument('[traceB]', 'second trace folder: compare side by side')
    .option('-o, --output <file.html>', 'where to write the page (default: <trace>/view.html, or ./qitos-diff-<A>-vs-<B>.html for two)')
    .option('--json', 'print where the page was written as JSON')
    .addHelpText('after', '\nExample:\n  $ qitos view traces/20250101T120000-abc123 -o run.html\n  $ qitos view traces/run-a traces/run-b -o diff.html\n')
    .action(async function (this: Command, pathA: string, pathB: string | undefined, flags: { output?: string; json?: boolean }) {
      const io = ioOf(this);
      const traces = [await loadTrace(io, pathA)];
      if (pathB) traces.push(await loadTrace(io, pathB));
      const html = viewHtml(viewData(traces));
      const out = flags.output
        ? resolve(io.cwd, flags.output)
        : traces.length === 1
          ? join(traces[0].dir, 'view.html')
          : resolve(io.cwd, `qitos-diff-${traces[0].manifest.runId}-vs-${traces[1].manifest.runId}.html`);
      await writeFile(out, html).catch((err: NodeJS.ErrnoException) => {
        throw new CliError(`cannot write ${out}: ${err.message}`);
      });
      const steps = traces.map((t) => t.steps.length);
      if (flags.json) io.out(JSON.stringify({ output: out, bytes: Buffer.byteLength(html), steps }, null, 2) + '\n');
      else io.out(`wrote ${out} (${steps.join(' + ')} steps, ${(Buffer.byteLength(html) / 1024).toFixed(0)} KiB)\n`);
    });
}
