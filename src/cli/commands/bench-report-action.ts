import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { benchReportData } from '../../bench/report-data.js';
import { benchReportHtml } from '../../app/bench-report/report-html.js';
import { AppError } from '../../app/app-error.js';
import type { CliIO } from '../io.js';
import type { BenchReportFlags } from './command-flags.js';

/** What `qitos bench report` does: read the run folders, write one self-contained HTML page. */
export async function benchReportAction(io: CliIO, dirs: string[], flags: BenchReportFlags): Promise<void> {
  let data;
  try {
    data = benchReportData(
      dirs.map((d) => resolve(io.cwd, d)),
      dirs,
    );
  } catch (err) {
    throw new AppError((err as Error).message, undefined, { cause: err });
  }
  const html = benchReportHtml(data);
  const out = resolve(io.cwd, flags.out ?? 'bench-report.html');
  await writeFile(out, html).catch((err: NodeJS.ErrnoException) => {
    throw new AppError(`cannot write ${out}: ${err.message}`);
  });
  const flips = data.tasks.filter((t) => t.flips).length;
  if (flags.json)
    io.out(
      JSON.stringify(
        { output: out, bytes: Buffer.byteLength(html), runs: data.runs.length, tasks: data.tasks.length, flips },
        null,
        2,
      ) + '\n',
    );
  else io.out(`wrote ${out} (${data.runs.length} runs, ${data.tasks.length} tasks, ${flips} flipping)\n`);
}
