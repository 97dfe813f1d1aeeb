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
  if (index >= count)
    throw new Error(
      `invalid shard "${text}": index ${index} is out of range 0..${count - 1} (shards are numbered from 0)`,
    );
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

/** A shard taken from the environment, and which scheduler's variables it came from. */
export interface ShardFromEnv {
  shard: Shard;
  /** e.g. `QITOS_SHARD=1/4`, `Kubernetes Indexed Job (JOB_COMPLETION_INDEX=1, QITOS_SHARD_COUNT=4)`. */
  source: string;
}

/**
 * The shard of this process from its scheduler's environment (`qitos bench run --shard auto`), first match wins:
 * 1. `QITOS_SHARD=i/n`, for any scheduler (a CI matrix, a shell loop);
 * 2. a Kubernetes Indexed Job: `JOB_COMPLETION_INDEX` (set by Kubernetes, from 0) with `QITOS_SHARD_COUNT` (the
 *    Job's `completions`, which Kubernetes does not pass to the pod: the manifest sets it);
 * 3. a Slurm job array: `SLURM_ARRAY_TASK_ID` and `SLURM_ARRAY_TASK_COUNT`, numbered from `SLURM_ARRAY_TASK_MIN`
 *    in steps of `SLURM_ARRAY_TASK_STEP` (so `--array=1-8` and `--array=0-14:2` both work).
 * Throws an error naming the variable when none is set or a value cannot be a shard.
 */
export function shardFromEnv(env: Record<string, string | undefined>): ShardFromEnv {
  const set = (name: string) => env[name] !== undefined && env[name] !== '';
  if (set('QITOS_SHARD'))
    return { shard: parseShardVar('QITOS_SHARD', env.QITOS_SHARD!), source: `QITOS_SHARD=${env.QITOS_SHARD}` };
  if (set('JOB_COMPLETION_INDEX')) {
    if (!set('QITOS_SHARD_COUNT')) {
      throw new Error(
        '--shard auto: JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but ' +
          "QITOS_SHARD_COUNT is not: set it to the Job's spec.completions in the pod's env",
      );
    }
    const index = count('JOB_COMPLETION_INDEX', env.JOB_COMPLETION_INDEX!, 0);
    const n = count('QITOS_SHARD_COUNT', env.QITOS_SHARD_COUNT!, 1);
    if (index >= n)
      throw new Error(
        `--shard auto: JOB_COMPLETION_INDEX=${index} is out of range for QITOS_SHARD_COUNT=${n} ` +
          `(indexes run 0..${n - 1}): QITOS_SHARD_COUNT must equal the Job's spec.completions`,
      );
    return {
      shard: { index, count: n },
      source: `Kubernetes Indexed Job (JOB_COMPLETION_INDEX=${index}, QITOS_SHARD_COUNT=${n})`,
    };
  }
  if (set('SLURM_ARRAY_TASK_ID')) {
    if (!set('SLURM_ARRAY_TASK_COUNT'))
      throw new Error(
        '--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not (is this a Slurm job array?)',
      );
    const id = count('SLURM_ARRAY_TASK_ID', env.SLURM_ARRAY_TASK_ID!, 0);
    const n = count('SLURM_ARRAY_TASK_COUNT', env.SLURM_ARRAY_TASK_COUNT!, 1);
    const min = set('SLURM_ARRAY_TASK_MIN') ? count('SLURM_ARRAY_TASK_MIN', env.SLURM_ARRAY_TASK_MIN!, 0) : 0;
    const step = set('SLURM_ARRAY_TASK_STEP') ? count('SLURM_ARRAY_TASK_STEP', env.SLURM_ARRAY_TASK_STEP!, 1) : 1;
    const index = (id - min) / step;
    if (!Number.isInteger(index) || index < 0 || index >= n) {
      throw new Error(
        `--shard auto: Slurm array task ${id} (min ${min}, step ${step}, count ${n}) is not one ` +
          `of ${n} evenly spaced tasks: use a range such as --array=0-${n - 1}, or set ` +
          `QITOS_SHARD=i/n`,
      );
    }
    return {
      shard: { index, count: n },
      source: `Slurm array (SLURM_ARRAY_TASK_ID=${id} of ${n} from ${min}${step !== 1 ? ` step ${step}` : ''})`,
    };
  }
  throw new Error(
    '--shard auto: no shard in the environment: set QITOS_SHARD=i/n, or run as a Kubernetes ' +
      'Indexed Job (JOB_COMPLETION_INDEX with QITOS_SHARD_COUNT) or a Slurm job array ' +
      '(SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT)',
  );
}

function parseShardVar(name: string, value: string): Shard {
  try {
    return parseShard(value);
  } catch (err) {
    throw new Error(`--shard auto: ${name}: ${(err as Error).message}`, { cause: err });
  }
}

/** A non-negative decimal integer of at least `min` from an environment variable. */
function count(name: string, value: string, min: number): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < min)
    throw new Error(`--shard auto: ${name}="${value}" is not ${min ? 'a positive' : 'a non-negative'} integer`);
  return Number(value);
}
