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
  /** Insert the value frozen all the way down (as a workflow's node records are), or the last frozen one again. */
  frozen: fc.constantFrom('no', 'no', 'fresh', 'again'),
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

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const x of Object.values(value)) deepFreeze(x);
    Object.freeze(value);
  }
  return value;
}

function applyChange(state: Json, c: Change, frozen: { last: unknown }): void {
  // Frozen values cannot be changed in place (that would throw): only the others are targets.
  const all = containers(state).filter((x) => !Object.isFrozen(x));
  const target = all[c.pick % all.length];
  let v = structuredClone(c.value);
  if (c.frozen === 'fresh') frozen.last = v = deepFreeze(v);
  else if (c.frozen === 'again' && frozen.last !== undefined) v = frozen.last;
  if (Array.isArray(target)) {
    const i = target.length ? c.index % target.length : 0;
    if (c.kind === 'push' || c.kind === 'set') target.push(v);
    else if (c.kind === 'setAt' || c.kind === 'replace') target[i] = v;
    else if (c.kind === 'insertAt') target.splice(i, 0, v);
    else target.length = Math.min(target.length, c.index % 4);
  } else if (c.kind === 'delete' || c.kind === 'truncate') delete target[c.key];
  else if (c.kind === 'push' && Array.isArray(target[c.key]) && !Object.isFrozen(target[c.key]))
    (target[c.key] as unknown[]).push(v);
  else if (c.kind === 'replace') target[c.key] = c.index % 2 ? {} : [];
  else target[c.key] = v;
}

const json = (v: unknown): unknown => JSON.parse(JSON.stringify(v));
/** The state as the trace holds it: a top-level key JSON would leave out is kept, as null. */
const recorded = (s: Json): Json =>
  json(Object.fromEntries(Object.entries(s).map(([k, v]) => [k, v === undefined ? null : v]))) as Json;

describe('StateDiffer', () => {
  it('the recorded diffs rebuild every state exactly, for random in-place changes at any depth (frozen values too)', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 3 }),
        fc.array(fc.array(change, { maxLength: 4 }), { maxLength: 12 }),
        (init, steps) => {
          const state: Json = { step: 0, thread: { completed: [], vars: {} }, start: init };
          const differ = new StateDiffer(state);
          const frozen = { last: undefined as unknown };
          let rebuilt = recorded(state);
          for (const [n, changes] of steps.entries()) {
            state.step = n + 1;
            for (const c of changes) applyChange(state, c, frozen);
            // What steps.jsonl holds and a reader validates.
            const diff = StateDiff.parse(json(differ.diff(state)));
            rebuilt = applyStateDiff(rebuilt, diff);
            expect(rebuilt).toEqual(recorded(state));
            expect(differ.diff(state)).toEqual({});
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

  it('a frozen value put back after its place held another value is recorded again', () => {
    const f = deepFreeze({ a: 1, b: { c: 2 }, list: [1, 2] });
    const state: Json = { thread: { rec: f } };
    const differ = new StateDiffer(state);
    let rebuilt = recorded(state);
    const t = state.thread as Json;
    for (const next of [{ a: 1, b: { c: 3 }, list: [1] }, f, { a: 2, b: { c: 2 }, list: [1, 2] }, f]) {
      t.rec = next;
      rebuilt = applyStateDiff(rebuilt, StateDiff.parse(json(differ.diff(state))));
      expect(rebuilt).toEqual(recorded(state));
      // A step that changes nothing records nothing (and the differ has now seen `next` equal to its copy).
      expect(differ.diff(state)).toEqual({});
    }
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
