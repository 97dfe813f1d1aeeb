import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Manifest } from '../core/index.js';
import { readManifest, readTrace, TraceError, type Trace } from '../trace/index.js';
import { CliError } from './cli-error.js';
import type { CliIO } from './io.js';

/**
 * Reads the trace folder a command was given (relative to the command's folder), the one way every command
 * takes a trace argument: reader errors become one-line CLI errors, reader warnings (a last line cut by a crash)
 * go to stderr.
 */
export async function loadTrace(io: Pick<CliIO, 'cwd' | 'err'>, path: string): Promise<Trace> {
  const dir = resolve(io.cwd, path);
  try {
    const trace = await readTrace(dir);
    for (const w of trace.warnings) io.err(`warning: ${dir}: ${w}\n`);
    return trace;
  } catch (err) {
    if (err instanceof TraceError) throw new CliError(err.message);
    throw err;
  }
}

/** A trace folder found under a runs folder. */
export interface FoundRun {
  dir: string;
  manifest: Manifest;
}

/**
 * Finds trace folders (folders holding a manifest.json) under `root`, up to `depth` levels down
 * (bench writes one trace per task in a sub-folder). Folders whose manifest is unreadable are reported in `skipped`.
 */
export async function findRuns(root: string, depth = 3): Promise<{ runs: FoundRun[]; skipped: string[] }> {
  const st = await stat(root).catch(() => undefined);
  if (!st?.isDirectory()) throw new CliError(`runs folder not found: ${root}`);
  const runs: FoundRun[] = [];
  const skipped: string[] = [];
  const walk = async (dir: string, level: number): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    if (entries.some((e) => e.isFile() && e.name === 'manifest.json')) {
      try {
        runs.push({ dir, manifest: await readManifest(dir) });
      } catch (err) {
        if (!(err instanceof TraceError)) throw err;
        skipped.push(err.message);
      }
      return;
    }
    if (level >= depth) return;
    for (const e of entries) if (e.isDirectory() && !e.name.startsWith('.')) await walk(join(dir, e.name), level + 1);
  };
  await walk(root, 0);
  runs.sort((a, b) => b.manifest.createdAt.localeCompare(a.manifest.createdAt));
  return { runs, skipped };
}
