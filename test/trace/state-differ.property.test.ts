import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StateDiff, applyStateDiff } from '../../src/core/index.js';
import { StateDiffer } from '../../src/trace/index.js';

type Json = Record<string, unknown>;

/** One in-place change, as an agent makes them: `pick` chooses the object or array it changes. */
const change = fc.record({
  pick: fc.nat(),
  kind: fc.constantFrom('set', 'delete', 'push', 'setAt', 'insertAt', 'truncate', 'replace'),
  key: fc.constantFrom('a', 'b', 'list', 'obj', 'thread', 'x y', 'constructor', 'toString'),
  index: fc.nat(),
  value: fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constant(undefined),
    fc.constant(Number.NaN),
    fc.constant(new Date(0)),
    fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
  ),
});
type Change = typeof change extends fc.Arbitrary<infer C> ? C : never;

/** Every object and array in the state, the state first. */
function containers(value: unknown, out: Array<Json | unknown[]> = []): Array<Json | unknown[]> {
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    out.push(value as Json | unknown[]);
    for (const v of Object.values(value)) containers(v, out);
  }
  return out;
}

function applyChange(state: Json, c: Change): void {
  const all = containers(state);
  const target = all[c.pick % all.length];
  const v = structuredClone(c.value);
  if (Array.isArray(target)) {
    const i = target.length ? c.index % target.length : 0;
    if (c.kind === 'push' || c.kind === 'set') target.push(v);
    else if (c.kind === 'setAt' || c.kind === 'replace') target[i] = v;
    else if (c.kind === 'insertAt') target.splice(i, 0, v);
    else target.length = Math.min(target.length, c.index % 4);
  } else if (c.kind === 'delete' || c.kind === 'truncate') delete target[c.key];
  else if (c.kind === 'push' && Array.isArray(target[c.key])) (target[c.key] as unknown[]).push(v);
  else if (c.kind === 'replace') target[c.key] = c.index % 2 ? {} : [];
  else target[c.key] = v;
}

const json = (v: unknown): unknown => JSON.parse(JSON.stringify(v));
/** The state as the trace holds it: a top-level key JSON would leave out is kept, as null. */
const recorded = (s: Json): Json =>
  json(Object.fromEntries(Object.entries(s).map(([k, v]) => [k, v === undefined ? null : v]))) as Json;

describe('StateDiffer', () => {
  it('the recorded diffs rebuild every state exactly, for random in-place changes at any depth', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 3 }),
        fc.array(fc.array(change, { maxLength: 4 }), { maxLength: 12 }),
        (init, steps) => {
          const state: Json = { step: 0, thread: { completed: [], vars: {} }, start: init };
          const differ = new StateDiffer(state);
          let rebuilt = recorded(state);
          for (const [n, changes] of steps.entries()) {
            state.step = n + 1;
            for (const c of changes) applyChange(state, c);
            // What steps.jsonl holds and a reader validates.
            const diff = StateDiff.parse(json(differ.diff(state)));
            rebuilt = applyStateDiff(rebuilt, diff);
            expect(rebuilt).toEqual(recorded(state));
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('records an append to a list inside an object as that item, whatever the list held before', () => {
    const state: Json = { step: 0, thread: { vars: {}, completed: [] as unknown[], current: 'n0' } };
    const differ = new StateDiffer(state);
    const t = state.thread as { vars: Json; completed: unknown[]; current: string };
    const sizes: number[] = [];
    for (let i = 0; i < 200; i++) {
      state.step = i + 1;
      t.vars[`n${i}`] = 'ok';
      t.completed.push({ node: `n${i}`, status: 'done', outputs: 'ok' });
      t.current = `n${i + 1}`;
      const diff = differ.diff(state);
      expect(diff.patch?.thread.splice?.completed).toEqual({
        at: i,
        items: [{ node: `n${i}`, status: 'done', outputs: 'ok' }],
      });
      sizes.push(JSON.stringify(diff).replace(/\d+/g, '').length);
    }
    expect(new Set(sizes).size).toBe(1);
  });

  it('still reads a diff written before `patch` existed (top-level set, splice and unset)', () => {
    const old = StateDiff.parse({
      set: { thread: { vars: { a: 1 } } },
      splice: { messages: { at: 0, items: [] } },
      unset: ['x'],
    });
    expect(applyStateDiff({ x: 1, messages: [1], thread: { vars: {} } }, old)).toEqual({
      messages: [],
      thread: { vars: { a: 1 } },
    });
  });

  it('rejects a splice with a negative index, naming where', () => {
    const r = StateDiff.safeParse({ patch: { thread: { splice: { completed: { at: -1, items: [] } } } } });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues[0].path)).toBe('["patch","thread","splice","completed","at"]');
  });
});
