import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readTrace, type Trace } from '../../trace/index.js';
import type { AppIO } from '../app-io.js';

/** At most this many branch runs are read for one view (a fork of thousands still opens; the rest are left out). */
const MAX_BRANCH_TRACES = 500;

/**
 * The child runs of a workflow run's forks (`threads/`, and theirs in turn), read as data: their nodes' statuses join
 * the graph. A branch folder that cannot be read is left out, with a line saying why.
 */
export async function branchTraces(
  io: Pick<AppIO, 'err'>,
  dir: string,
  depth = 0,
  out: Trace[] = [],
): Promise<Trace[]> {
  if (depth > 8 || out.length >= MAX_BRANCH_TRACES) return out;
  const names = await readdir(join(dir, 'threads')).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT')
      io.err(`view: the branches under ${join(dir, 'threads')} are not shown: ${err.message}\n`);
    return [] as string[];
  });
  for (const name of names.sort()) {
    if (out.length >= MAX_BRANCH_TRACES) break;
    const child = join(dir, 'threads', name);
    try {
      out.push(await readTrace(child));
    } catch (err) {
      io.err(`view: branch ${child} is not shown: ${(err as Error).message}\n`);
      continue;
    }
    await branchTraces(io, child, depth + 1, out);
  }
  return out;
}
