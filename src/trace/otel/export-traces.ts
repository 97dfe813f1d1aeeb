import type { TraceTap } from '../../core/index.js';
import { childTraceDirs } from '../trace-files.js';
import { readTrace } from '../trace-reader.js';

/**
 * Sends recorded traces through a tap as if their runs happened now, with their recorded times: each run's first
 * manifest, then its child traces (sub-runs, workflow branches: their spans under its own), then its events and
 * steps, then its final manifest. Returns how many runs (children included) were sent. A folder that is not a
 * trace fails with a `TraceError` naming it; nothing in a trace is run, it is only read.
 */
export async function exportTraces(dirs: readonly string[], tap: TraceTap): Promise<number> {
  let runs = 0;
  const send = async (dir: string): Promise<void> => {
    const trace = await readTrace(dir);
    const run = tap.open(trace.manifest);
    runs++;
    for (const child of childTraceDirs(trace.dir)) await send(child);
    if (!run) return;
    for (const rec of trace.events) run.event(rec);
    for (const rec of trace.steps) run.step(rec);
    run.finish(trace.manifest);
  };
  for (const dir of dirs) await send(dir);
  return runs;
}
