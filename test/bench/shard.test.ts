import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shardFromEnv } from '../../src/bench/index.js';

describe('shardFromEnv (--shard auto)', () => {
  it('reads QITOS_SHARD, a Kubernetes Indexed Job, or a Slurm array, in that order', () => {
    expect(shardFromEnv({ QITOS_SHARD: '2/5' })).toEqual({ shard: { index: 2, count: 5 }, source: 'QITOS_SHARD=2/5' });
    expect(shardFromEnv({ JOB_COMPLETION_INDEX: '3', QITOS_SHARD_COUNT: '4' })).toEqual({
      shard: { index: 3, count: 4 },
      source: 'Kubernetes Indexed Job (JOB_COMPLETION_INDEX=3, QITOS_SHARD_COUNT=4)',
    });
    expect(shardFromEnv({ SLURM_ARRAY_TASK_ID: '0', SLURM_ARRAY_TASK_COUNT: '4' }).shard).toEqual({
      index: 0,
      count: 4,
    });
    // --array=1-4: numbered from 1
    expect(
      shardFromEnv({ SLURM_ARRAY_TASK_ID: '4', SLURM_ARRAY_TASK_COUNT: '4', SLURM_ARRAY_TASK_MIN: '1' }).shard,
    ).toEqual({ index: 3, count: 4 });
    // --array=0-14:2 has tasks 0, 2, ..., 14
    expect(
      shardFromEnv({
        SLURM_ARRAY_TASK_ID: '6',
        SLURM_ARRAY_TASK_COUNT: '8',
        SLURM_ARRAY_TASK_MIN: '0',
        SLURM_ARRAY_TASK_STEP: '2',
      }).shard,
    ).toEqual({ index: 3, count: 8 });
    // an explicit QITOS_SHARD wins over the scheduler's variables; Kubernetes over Slurm
    expect(
      shardFromEnv({
        QITOS_SHARD: '0/2',
        JOB_COMPLETION_INDEX: '1',
        QITOS_SHARD_COUNT: '3',
        SLURM_ARRAY_TASK_ID: '1',
        SLURM_ARRAY_TASK_COUNT: '2',
      }).shard,
    ).toEqual({ index: 0, count: 2 });
    expect(
      shardFromEnv({
        JOB_COMPLETION_INDEX: '1',
        QITOS_SHARD_COUNT: '3',
        SLURM_ARRAY_TASK_ID: '0',
        SLURM_ARRAY_TASK_COUNT: '2',
      }).shard,
    ).toEqual({ index: 1, count: 3 });
  });

  it('names what is missing or wrong', () => {
    expect(() => shardFromEnv({})).toThrow(
      /^--shard auto: no shard in the environment: set QITOS_SHARD=i\/n, or run as a Kubernetes Indexed Job/,
    );
    expect(() => shardFromEnv({ QITOS_SHARD: '' })).toThrow(/no shard in the environment/);
    expect(() => shardFromEnv({ QITOS_SHARD: '4/4' })).toThrow(
      '--shard auto: QITOS_SHARD: invalid shard "4/4": index 4 is out of range 0..3',
    );
    expect(() => shardFromEnv({ JOB_COMPLETION_INDEX: '0' })).toThrow(
      /QITOS_SHARD_COUNT is not: set it to the Job's spec\.completions/,
    );
    expect(() => shardFromEnv({ JOB_COMPLETION_INDEX: '4', QITOS_SHARD_COUNT: '4' })).toThrow(
      /JOB_COMPLETION_INDEX=4 is out of range for QITOS_SHARD_COUNT=4/,
    );
    expect(() => shardFromEnv({ JOB_COMPLETION_INDEX: 'x', QITOS_SHARD_COUNT: '4' })).toThrow(
      '--shard auto: JOB_COMPLETION_INDEX="x" is not a non-negative integer',
    );
    expect(() => shardFromEnv({ JOB_COMPLETION_INDEX: '0', QITOS_SHARD_COUNT: '0' })).toThrow(
      '--shard auto: QITOS_SHARD_COUNT="0" is not a positive integer',
    );
    expect(() => shardFromEnv({ SLURM_ARRAY_TASK_ID: '1' })).toThrow(/SLURM_ARRAY_TASK_COUNT is not/);
    // --array=1,3,7: not evenly spaced from the min, so task 7 has no shard of 3
    expect(() =>
      shardFromEnv({ SLURM_ARRAY_TASK_ID: '7', SLURM_ARRAY_TASK_COUNT: '3', SLURM_ARRAY_TASK_MIN: '1' }),
    ).toThrow(/Slurm array task 7 \(min 1, step 1, count 3\) is not one of 3 evenly spaced tasks/);
  });

  it('the tasks of any evenly spaced Slurm array map one to one onto shards 0..n-1', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 1, max: 10 }),
        (n, min, step) => {
          const indexes = Array.from(
            { length: n },
            (_, k) =>
              shardFromEnv({
                SLURM_ARRAY_TASK_ID: String(min + k * step),
                SLURM_ARRAY_TASK_COUNT: String(n),
                SLURM_ARRAY_TASK_MIN: String(min),
                SLURM_ARRAY_TASK_STEP: String(step),
              }).shard,
          );
          expect(indexes).toEqual(Array.from({ length: n }, (_, k) => ({ index: k, count: n })));
        },
      ),
    );
  });
});
