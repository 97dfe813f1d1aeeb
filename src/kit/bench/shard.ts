import { createHash } from 'node:crypto';

/** One shard of a suite: `index` in [0, count). */
export interface Shard {
  index: number;
  count: number;
}

/**
 * Parses `i/n` (0-based index, as a Kubernetes indexed job's JOB_COMPLETION_INDEX; for SLURM arrays numbered
 * from 1 pass `$((SLURM_ARRAY_TASK_ID-1))/n`). The error names what was wrong.
 */
export function parseShard(text: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!m) throw new Error(`invalid shard "${text}": expected i/n, e.g. 0/4 (index from 0 to n-1)`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1) throw new Error(`invalid shard "${text}": n must be at least 1`);
  if (index >= count) throw new Error(`invalid shard "${text}": index ${index} is out of range 0..${count - 1} (shards are numbered from 0)`);
  return { index, count };
}

/** `i/n`. */
export function formatShard(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}

/** A stable 32-bit hash of a task id: the first four bytes of its SHA-256, big-endian. */
export function taskHash(id: string): number {
  return createHash('sha256').update(id, 'utf8').digest().readUInt32BE(0);
}

/**
 * Whether a task belongs to a shard. The choice depends only on the id and n, never on the order of the task file
 * or on the machine, so n independent jobs cover every task exactly once.
 */
export function inShard(id: string, shard: Shard): boolean {
  return taskHash(id) % shard.count === shard.index;
}
