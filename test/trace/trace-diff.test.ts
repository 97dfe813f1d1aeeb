import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StepRecord } from '../../src/core/index.js';
import { readTrace, type Trace } from '../../src/trace/index.js';
import { diffTraces } from '../../src/trace/index.js';
import { recordCalcRun, tempDir } from '../helpers/cli-harness.js';

let cleanup: () => Promise<void>;
let template: Trace;
beforeAll(async () => {
  let dir: string;
  ({ dir, cleanup } = await tempDir('qitos-diff-'));
  template = await readTrace((await recordCalcRun(dir)).traceDir);
});
afterAll(() => cleanup());

/** A trace of calc steps with these expressions, then the recorded final step (ids and times as recorded). */
function traceOf(exprs: string[], runId: string): Trace {
  const [act, final] = template.steps;
  const steps: StepRecord[] = exprs.map((expr, i) => {
    const s = structuredClone(act);
    s.step = i + 1;
    if (s.decision?.mode === 'act') s.decision.actions[0].args = { expr };
    return s;
  });
  steps.push({ ...structuredClone(final), step: exprs.length + 1 });
  return { ...template, manifest: { ...template.manifest, runId }, steps };
}

const expr = fc
  .tuple(fc.integer({ min: 0, max: 99 }), fc.constantFrom('+', '-', '*', '/'), fc.integer({ min: 0, max: 99 }))
  .map(([a, op, b]) => `${a} ${op} ${b}`);

describe('diffTraces (properties)', () => {
  it('a trace against a copy of itself: no difference at any length', () => {
    fc.assert(
      fc.property(fc.array(expr, { maxLength: 12 }), (exprs) => {
        const d = diffTraces(traceOf(exprs, 'a'), traceOf(exprs, 'b'));
        expect(d.same).toBe(true);
        expect(d.first).toBeNull();
        expect(d.steps).toHaveLength(exprs.length + 1);
      }),
    );
  });

  it('one changed argument at step k: the first difference is step k, action args, whatever follows', () => {
    fc.assert(
      fc.property(fc.array(expr, { minLength: 1, maxLength: 12 }), fc.nat(), expr, (exprs, i, other) => {
        const k = i % exprs.length;
        fc.pre(other !== exprs[k]);
        const changed = exprs.map((e, j) => (j === k ? other : e));
        const d = diffTraces(traceOf(exprs, 'a'), traceOf(changed, 'b'));
        expect(d.same).toBe(false);
        expect(d.first).toMatchObject({ step: k + 1, phase: 'action_args' });
        expect(d.steps.filter((s) => s.phases.length).map((s) => s.step)).toEqual([k + 1]);
      }),
    );
  });

  it('runs of different lengths: the first difference is where the shorter one parts (in either order)', () => {
    fc.assert(
      fc.property(
        fc.array(expr, { maxLength: 10 }),
        fc.array(expr, { minLength: 1, maxLength: 5 }),
        (common, extra) => {
          const short = traceOf(common, 'a');
          const long = traceOf([...common, ...extra], 'b');
          for (const d of [diffTraces(short, long), diffTraces(long, short)]) {
            // Step n+1 is the short run's final answer where the long one still calls a tool (the two template
            // steps were asked with different histories, so the model input is the first phase that differs).
            expect(d.first).toMatchObject({ step: common.length + 1, phase: 'model_input' });
            expect(d.steps[common.length].phases).toContain('decision');
            expect(d.steps).toHaveLength(common.length + extra.length + 1);
            expect(d.steps.at(-1)!.phases).toEqual(['missing']);
          }
        },
      ),
    );
  });
});

describe('diffTraces (state)', () => {
  it('names the top-level key whose nested patch differs', () => {
    const a = traceOf(['1 + 1'], 'a');
    const b = traceOf(['1 + 1'], 'b');
    a.steps[0].stateDiff = { patch: { thread: { set: { current: 'n1' } } } };
    b.steps[0].stateDiff = { patch: { thread: { set: { current: 'n2' } } } };
    const d = diffTraces(a, b);
    expect(d.first).toMatchObject({ step: 1, phase: 'state', detail: 'state differs in thread' });
  });
});
