import { describe, expect, it } from 'vitest';
import { emptyTokens, type StopReason } from '../../src/core/index.js';
import { renderReport, summarize, type ResultLine } from '../../src/bench/index.js';

function line(taskId: string, epoch: number, pass: boolean, extra: Partial<ResultLine> = {}): ResultLine {
  return {
    taskId,
    epoch,
    pass,
    score: pass ? 1 : 0,
    explanation: pass ? 'ok' : 'wrong answer',
    stopReason: 'final',
    steps: 2,
    tokens: 100,
    tokenDetail: emptyTokens(),
    cost: 0.01,
    modelCalls: 2,
    durationMs: 100,
    traceDir: `traces/${taskId}.e${epoch}`,
    runId: `${taskId}.e${epoch}`,
    answer: 'x',
    error: null,
    errorKind: null,
    finishedAt: '2025-01-01T00:00:00Z',
    ...extra,
  };
}

// Three tasks x 3 epochs. a: 3/3 passes; b: 1/3 (epoch 2 is a doom-loop stop); c: 0/3 (epoch 3 a scorer error).
const lines: ResultLine[] = [
  line('a', 1, true, { durationMs: 50 }),
  line('a', 2, true, { durationMs: 60 }),
  line('a', 3, true, { durationMs: 70, steps: 5 }),
  line('b', 1, false),
  line('b', 2, false, { stopReason: 'doom_loop' as StopReason, explanation: 'no answer', durationMs: 900, steps: 8 }),
  line('b', 3, true),
  line('c', 1, false, { durationMs: 400 }),
  line('c', 2, false, { stopReason: 'budget_steps' as StopReason }),
  line('c', 3, false, { error: 'scorer s failed: boom', errorKind: 'scorer', tokens: 400 }),
];
const meta = {
  suite: 'demo',
  model: 'openai:gpt-4o-mini',
  agent: 'agent.ts',
  epochs: 3,
  shard: null,
  taskIds: ['a', 'b', 'c'],
};

describe('summarize', () => {
  it('computes pass rate with its Wilson interval, pass@k and pass^k by hand', () => {
    const s = summarize(lines, meta);
    expect(s).toMatchObject({
      tasks: 3,
      trials: 9,
      expectedTrials: 9,
      missing: 0,
      complete: true,
      passRate: { passed: 4, total: 9 },
    });
    expect(s.passRate.rate).toBeCloseTo(4 / 9, 12);
    // Wilson 95% for 4/9 (textbook formula, z = 1.959964): 0.188779 to 0.733349.
    expect(s.passRate.ci[0]).toBeCloseTo(0.188779, 5);
    expect(s.passRate.ci[1]).toBeCloseTo(0.733349, 5);
    // pass@k = mean over tasks of 1 - C(n-c,k)/C(n,k), n = 3, c = 3, 1, 0.
    expect(s.passAtK[1]).toBeCloseTo((1 + 1 / 3 + 0) / 3, 12);
    expect(s.passAtK[2]).toBeCloseTo((1 + (1 - 1 / 3) + 0) / 3, 12);
    expect(s.passAtK[3]).toBeCloseTo((1 + 1 + 0) / 3, 12);
    // pass^k = mean of C(c,k)/C(n,k).
    expect(s.passHatK[1]).toBeCloseTo((1 + 1 / 3 + 0) / 3, 12);
    expect(s.passHatK[2]).toBeCloseTo(1 / 3, 12);
    expect(s.passHatK[3]).toBeCloseTo(1 / 3, 12);
  });

  it('means and totals per trial, a histogram of stop reasons with doom-loop stops, errors, slowest and failed trials', () => {
    const s = summarize(lines, meta);
    expect(s.perTrial.steps).toBeCloseTo((2 * 7 + 5 + 8) / 9, 12);
    expect(s.perTrial.tokens).toBeCloseTo((8 * 100 + 400) / 9, 12);
    expect(s.perTrial.cost).toBeCloseTo(0.01, 12);
    expect(s.totals).toMatchObject({ tokens: 1200, durationMs: 50 + 60 + 70 + 100 + 900 + 100 + 400 + 100 + 100 });
    expect(s.stopReasons).toEqual({ final: 7, doom_loop: 1, budget_steps: 1 });
    expect(s.errors).toMatchObject({
      scorer: 1,
      run: 0,
      setup: 0,
      samples: [{ taskId: 'c', epoch: 3, kind: 'scorer', error: 'scorer s failed: boom' }],
    });
    expect(s.slowest.slice(0, 2)).toEqual([
      { taskId: 'b', epoch: 2, durationMs: 900, traceDir: 'traces/b.e2' },
      { taskId: 'c', epoch: 1, durationMs: 400, traceDir: 'traces/c.e1' },
    ]);
    expect(s.failed.map((f) => `${f.taskId}.${f.epoch}`)).toEqual(['b.1', 'b.2', 'c.1', 'c.2', 'c.3']);
  });

  it('an unknown cost makes the cost unknown, not zero', () => {
    const s = summarize([line('a', 1, true), line('b', 1, true, { cost: null })], {
      ...meta,
      epochs: 1,
      taskIds: ['a', 'b'],
    });
    expect(s.perTrial.cost).toBeNull();
    expect(s.totals.cost).toBeNull();
    expect(renderReport(s)).toContain('| 2.0 | 100 | unknown |');
  });

  it('counts what is missing, keeps the last of duplicate lines, and leaves out lines of other tasks, with warnings', () => {
    const s = summarize([line('a', 1, false), line('a', 1, true), line('zz', 1, true)], {
      ...meta,
      epochs: 2,
      taskIds: ['a', 'b'],
    });
    expect(s).toMatchObject({
      trials: 1,
      expectedTrials: 4,
      missing: 3,
      complete: false,
      passRate: { passed: 1, total: 1 },
    });
    expect(s.warnings).toEqual([
      'duplicate result for task "a" epoch 1: the last one counts',
      '1 result line(s) for tasks or epochs outside this run were left out',
    ]);
    // No task has two epochs yet: pass@2 is not reported rather than made up.
    expect(s.passAtK[2]).toBeUndefined();
  });
});

describe('renderReport', () => {
  it('reads as a report: headline with interval, pass@k table, costs, stop reasons, slowest and failed trials with trace links', () => {
    const text = renderReport(summarize(lines, meta));
    expect(text).toContain('# Benchmark report: demo');
    expect(text).toContain('- Model: openai:gpt-4o-mini; agent: agent.ts; epochs: 3');
    expect(text).toContain('- Trials: 9 of 9 (3 tasks x 3 epochs)');
    expect(text).toContain('- **Pass rate: 44.4%** (4/9), 95% CI 18.9% to 73.3% (Wilson)');
    expect(text).toContain('- Errors: 1 (run: 0, scorer: 1, agent setup: 0); they count as fails');
    expect(text).toContain('| 2 | 55.6% | 33.3% |');
    expect(text).toContain('| doom_loop | 1 |');
    expect(text).toContain('| b | 2 | 900 ms | [trace](traces/b.e2) |');
    expect(text).toContain('## Failed trials (5)');
    expect(text).toContain('| b | 2 | doom_loop | 0.00 | no answer | [trace](traces/b.e2) |');
    expect(text).toContain('| c | 3 | final | 0.00 | scorer s failed: boom | [trace](traces/c.e3) |');
    const one = renderReport(summarize([line('a', 1, true)], { ...meta, epochs: 1, taskIds: ['a'] }));
    expect(one).toContain('(1 task x 1 epoch)');
    expect(one).not.toContain('pass@k');
  });

  it('says when every trial ended in an error, with the whole first message', () => {
    const long = `gave up after 3 consecutive recoveries; last error (model_transport): ${'connection failed '.repeat(12)}end`;
    const s = summarize(
      [line('a', 1, false, { error: long, errorKind: 'run', stopReason: 'unrecoverable_error' as StopReason })],
      { ...meta, epochs: 1, taskIds: ['a'] },
    );
    const text = renderReport(s);
    expect(text).toContain(`**Every trial ended in an error.** First error: ${long}`);
  });
});

describe('summarize: pass^k as tau-bench defines it, and side-call usage', () => {
  it('pass^k = mean over tasks of C(c,k)/C(n,k), hand-computed for 4 trials', () => {
    // a: 3 of 4 pass, b: 4 of 4, c: 1 of 4.
    const passes: Record<string, boolean[]> = {
      a: [true, true, false, true],
      b: [true, true, true, true],
      c: [false, false, true, false],
    };
    const rows = Object.entries(passes).flatMap(([id, ps]) => ps.map((p, i) => line(id, i + 1, p)));
    const s = summarize(rows, { ...meta, epochs: 4 });
    // a: 3/4, C(3,2)/C(4,2) = 3/6, C(3,3)/C(4,3) = 1/4, 0. b: 1 throughout. c: 1/4, then 0.
    expect(s.passHatK[1]).toBeCloseTo((0.75 + 1 + 0.25) / 3, 12);
    expect(s.passHatK[2]).toBeCloseTo((0.5 + 1 + 0) / 3, 12);
    expect(s.passHatK[3]).toBeCloseTo((0.25 + 1 + 0) / 3, 12);
    expect(s.passHatK[4]).toBeCloseTo(1 / 3, 12);
    expect(renderReport(s)).toContain('| 2 | 83.3% | 50.0% |'); // pass@2: a 1, b 1, c 1 - C(3,2)/C(4,2) = 0.5
  });

  it('sums the usage of side calls by purpose (a user simulator) and reports it apart, inside the totals', () => {
    const user = (calls: number, cost: number | null) => ({
      user: { tokens: { ...emptyTokens(), input: 30 * calls, output: 5 * calls }, cost, modelCalls: calls },
    });
    const s = summarize(
      [
        line('a', 1, true, { usageByPurpose: user(3, 0.003) }),
        line('b', 1, false, { usageByPurpose: user(2, 0.002) }),
        line('c', 1, false),
      ],
      { ...meta, epochs: 1 },
    );
    expect(s.byPurpose?.user.modelCalls).toBe(5);
    expect(s.byPurpose?.user.tokens).toBe(175);
    expect(s.byPurpose?.user.cost).toBeCloseTo(0.005, 12);
    expect(renderReport(s)).toContain(
      'Of these, calls for "user" (not the agent\'s steps): 5 calls, 175 tokens, $0.0050.',
    );
    const unknown = summarize(
      [line('a', 1, true, { usageByPurpose: user(1, null) }), line('b', 1, true, { usageByPurpose: user(1, 0.1) })],
      { ...meta, epochs: 1 },
    );
    expect(unknown.byPurpose?.user.cost).toBeNull();
  });
});
