import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareRuns, renderComparison, type ResultLine } from '../../src/bench/index.js';
import { emptyTokens } from '../../src/core/index.js';
import { tempDir } from '../helpers/bench-fixtures.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function line(taskId: string, epoch: number, pass: boolean, extra: Partial<ResultLine> = {}): ResultLine {
  return {
    taskId,
    epoch,
    pass,
    score: pass ? 1 : 0,
    explanation: '',
    stopReason: 'final',
    steps: 2,
    tokens: 100,
    tokenDetail: emptyTokens(),
    cost: 0.01,
    modelCalls: 2,
    durationMs: 50,
    traceDir: `traces/${taskId}.e${epoch}`,
    runId: `${taskId}.e${epoch}`,
    answer: 'x',
    error: null,
    errorKind: null,
    finishedAt: '2025-01-01T00:00:00Z',
    ...extra,
  };
}
function run(lines: ResultLine[], suite = 's'): string {
  const t = tempDir('qitos-cmp-');
  cleanups.push(t.cleanup);
  writeFileSync(join(t.dir, 'results.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  writeFileSync(
    join(t.dir, 'run.json'),
    JSON.stringify({
      schema: 'qitos.bench.run',
      version: 1,
      suite,
      suiteDir: null,
      epochs: 1,
      shard: null,
      taskIds: [],
      suiteTaskIds: [],
      model: 'm',
      agent: 'a',
      createdAt: '',
      updatedAt: '',
    }),
  );
  return t.dir;
}

describe('compareRuns', () => {
  it('pairs trials, counts flips each way with diff commands, and runs McNemar on the discordant pairs', () => {
    // 40 tasks: both pass 10, both fail 14, B fixes 12, B breaks 4.
    const ids = Array.from({ length: 40 }, (_, i) => `t${i}`);
    const outcome = (i: number): [boolean, boolean] =>
      i < 10 ? [true, true] : i < 24 ? [false, false] : i < 36 ? [false, true] : [true, false];
    const a = run(ids.map((id, i) => line(id, 1, outcome(i)[0], { tokens: 100 })));
    const b = run([
      ...ids.map((id, i) => line(id, 1, outcome(i)[1], { tokens: 130, cost: 0.02 })),
      line('extra', 1, true),
    ]);
    const c = compareRuns(a, b);
    expect(c).toMatchObject({ pairedTrials: 40, pairedTasks: 40, onlyInA: 0, onlyInB: 1 });
    expect(c.passRate.a).toBeCloseTo(14 / 40, 12);
    expect(c.passRate.b).toBeCloseTo(22 / 40, 12);
    expect(c.passRate.delta).toBeCloseTo(0.2, 12);
    expect(c.mcnemar.aOnly).toBe(4);
    expect(c.mcnemar.bOnly).toBe(12);
    expect(c.mcnemar.pValue).toBeCloseTo(0.0768127, 6); // 2 * P(Binom(16, 1/2) <= 4)
    expect(c.passRate.ci[0]).toBeLessThan(0.2);
    expect(c.passRate.ci[1]).toBeGreaterThan(0.2);
    expect(c.flips.toPass).toHaveLength(12);
    expect(c.flips.toFail.map((f) => f.taskId)).toEqual(['t36', 't37', 't38', 't39']);
    expect(c.flips.toPass[0].diff).toBe(`qitos diff ${join(a, 'traces/t24.e1')} ${join(b, 'traces/t24.e1')}`);
    expect(c.tokens).toEqual({ a: 100, b: 130, delta: 30 });
    expect(c.cost.delta).toBeCloseTo(0.01, 12);
    // Seeded: the same runs give the same interval; another seed gives a (slightly) different one.
    expect(compareRuns(a, b).passRate.ci).toEqual(c.passRate.ci);
    expect(compareRuns(a, b, { seed: 7 }).passRate.ci).not.toEqual(c.passRate.ci);
    const text = renderComparison(c);
    expect(text).toContain('Pass rate: A 35.0% -> B 55.0%, delta +20.0 pp');
    expect(text).toContain('12 trials passed only in B, 4 only in A, p = 0.0768');
    expect(text).toContain('not significant at the 5% level');
    expect(text).toContain('## Fixed in B (failed in A, passed in B): 12');
  });

  it('calls a large consistent improvement significant', () => {
    const ids = Array.from({ length: 60 }, (_, i) => `t${i}`);
    const a = run(ids.map((id, i) => line(id, 1, i < 15)));
    const b = run(ids.map((id, i) => line(id, 1, i < 45)));
    const c = compareRuns(a, b);
    expect(c.mcnemar.pValue).toBeLessThan(1e-6);
    expect(c.passRate.ci[0]).toBeGreaterThan(0.3);
    expect(renderComparison(c)).toContain('B is better than A at the 5% level');
  });

  it('resamples tasks, not epochs, and reports unknown cost as unknown', () => {
    const a = run(['x', 'y', 'z'].flatMap((id) => [1, 2, 3].map((e) => line(id, e, id === 'x', { cost: null }))));
    const b = run(['x', 'y', 'z'].flatMap((id) => [1, 2, 3].map((e) => line(id, e, id !== 'z'))));
    const c = compareRuns(a, b);
    expect(c).toMatchObject({ pairedTrials: 9, pairedTasks: 3 });
    expect(c.passRate.delta).toBeCloseTo(1 / 3, 12);
    // Per-task deltas are 0, +1, 0: the bootstrap can only produce multiples of 1/3.
    expect(c.passRate.ci[0]).toBeGreaterThanOrEqual(0);
    expect(c.cost).toEqual({ a: null, b: null, delta: null });
  });

  it('with epochs missing on one side, the interval is of trial-level deltas and stays within [-1, 1]', () => {
    // x: 2 paired epochs, failed in A and passed in B; y: epoch 2 only in A, epoch 1 passes in both.
    const a = run([line('x', 1, false), line('x', 2, false), line('y', 1, true), line('y', 2, true)]);
    const b = run([line('x', 1, true), line('x', 2, true), line('y', 1, true)]);
    const c = compareRuns(a, b, { resamples: 2000 });
    expect(c).toMatchObject({ pairedTrials: 3, pairedTasks: 2, onlyInA: 1, onlyInB: 0 });
    expect(c.passRate.delta).toBeCloseTo(2 / 3, 12);
    // Resampled tasks {x,x}: +1, {y,y}: 0, {x,y}: +2/3.
    expect(c.passRate.ci).toEqual([0, 1]);
    expect(renderComparison(c)).toContain('(left out: 1 only in A, 0 only in B)');
  });

  it('refuses folders that are not runs or share nothing, and warns about different suites', () => {
    const a = run([line('a', 1, true)], 's1');
    const b = run([line('b', 1, true)], 's2');
    expect(() => compareRuns(a, b)).toThrow(/share no task\/epoch pair/);
    const empty = tempDir();
    cleanups.push(empty.cleanup);
    mkdirSync(join(empty.dir, 'x'));
    expect(() => compareRuns(empty.dir, a)).toThrow(/is not a bench run: no results\.jsonl/);
    const c = run([line('a', 1, false)], 's3');
    expect(compareRuns(a, c).warnings[0]).toMatch(/different suites/);
  });
});
