import { resolve } from 'node:path';
import { readTrace, TraceError, type Trace } from '../trace/index.js';
import { AppError } from './app-error.js';
import type { AppIO } from './app-io.js';

/**
 * Reads the trace folder a command was given (relative to the command's folder), the one way every command
 * takes a trace argument: reader errors become one-line CLI errors, reader warnings (a last line cut by a crash)
 * go to stderr. With `key`, the manifest's signature is checked against it (`Trace.signature`).
 */
export async function loadTrace(io: Pick<AppIO, 'cwd' | 'err'>, path: string, key?: Uint8Array): Promise<Trace> {
  const dir = resolve(io.cwd, path);
  try {
    const trace = await readTrace(dir, key ? { key } : {});
    for (const w of trace.warnings) io.err(`warning: ${dir}: ${w}\n`);
    return trace;
  } catch (err) {
    if (TraceError.isInstance(err)) throw new AppError(err.message);
    throw err;
  }
}
