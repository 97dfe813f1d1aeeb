import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { loadTrace } from '../../app/trace-loader.js';
import { fileSafeName, type Trace } from '../../trace/index.js';
import { branchTraces } from '../../app/view/branch-traces.js';
import { isWorkflowManifest } from '../../kit/workflow/index.js';
import { viewData } from '../../app/view/view-data.js';
import { viewHtml } from '../../app/view/view-html.js';
import { AppError } from '../../app/app-error.js';
import type { CliIO } from '../io.js';

/** What `qitos view` does (loaded when the command runs, so `qitos --help` stays fast). */
export async function viewAction(
  io: CliIO,
  pathA: string,
  pathB: string | undefined,
  flags: { output?: string; json?: boolean },
): Promise<void> {
  const traces = [await loadTrace(io, pathA)];
  if (pathB) traces.push(await loadTrace(io, pathB));
  const branches = new Map<string, Trace[]>();
  for (const t of traces) if (isWorkflowManifest(t.manifest)) branches.set(t.dir, await branchTraces(io, t.dir));
  const html = viewHtml(viewData(traces, branches));
  const out = flags.output
    ? resolve(io.cwd, flags.output)
    : traces.length === 1
      ? join(traces[0].dir, 'view.html')
      : // Run ids come from the traces: made file-safe, so the page lands in this folder whatever they say.
        resolve(
          io.cwd,
          `qitos-diff-${fileSafeName(traces[0].manifest.runId)}-vs-${fileSafeName(traces[1].manifest.runId)}.html`,
        );
  await writeFile(out, html).catch((err: NodeJS.ErrnoException) => {
    throw new AppError(`cannot write ${out}: ${err.message}`);
  });
  const steps = traces.map((t) => t.steps.length);
  if (flags.json) io.out(JSON.stringify({ output: out, bytes: Buffer.byteLength(html), steps }, null, 2) + '\n');
  else io.out(`wrote ${out} (${steps.join(' + ')} steps, ${(Buffer.byteLength(html) / 1024).toFixed(0)} KiB)\n`);
}
