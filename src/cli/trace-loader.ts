import { resolve } from 'node:path';
import { readTrace, TraceError, type Trace } from '../engine/trace-reader.js';
import { CliError } from './cli-error.js';

/** Reads a trace for a command; reader errors become one-line CLI errors, reader warnings go to `warn`. */
export async function loadTrace(path: string, cwd: string, warn: (line: string) => void): Promise<Trace> {
  const dir = resolve(cwd, path);
  try {
    const trace = await readTrace(dir);
    for (const w of trace.warnings) warn(`warning: ${dir}: ${w}`);
    return trace;
  } catch (err) {
    if (err instanceof TraceError) throw new CliError(err.message);
    throw err;
  }
}
