import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  Decision,
  Message,
  StepRecord,
  Task,
  ToolState,
  applyStateDiff,
  emptyTokens,
  toModelMessages,
  type Message as MessageT,
} from '../../src/index.js';
import {
  addTokens,
  addCost,
  canonicalJson,
  COMPACTED_PLACEHOLDER,
  INTERRUPTED_TOOL_ERROR,
} from '../../src/core/index.js';

describe('canonicalJson', () => {
  it('is independent of key order at every depth', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (obj) => {
        const reversed = Object.fromEntries(Object.entries(obj).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(obj));
        expect(JSON.parse(canonicalJson(obj))).toEqual(JSON.parse(JSON.stringify(obj)));
      }),
    );
    expect(canonicalJson({ b: { d: 1, c: [2, { y: 1, x: 0 }] }, a: 'z' })).toBe(
      '{"a":"z","b":{"c":[2,{"x":0,"y":1}],"d":1}}',
    );
  });

  it('keeps an own "__proto__" key (JSON.parse makes one), at any depth', () => {
    expect(canonicalJson(JSON.parse('{"__proto__":1}'))).toBe('{"__proto__":1}');
    expect(canonicalJson(JSON.parse('{"__proto__":1}'))).not.toBe(canonicalJson({}));
    expect(canonicalJson(JSON.parse('{"b":[{"__proto__":{"x":1}}],"a":{"__proto__":null}}'))).toBe(
      '{"a":{"__proto__":null},"b":[{"__proto__":{"x":1}}]}',
    );
    // The output never has a polluted prototype either.
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('round-trips objects whose keys include "__proto__" and "constructor" (every run, not 1 in 60)', () => {
    const key = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'toString'), fc.string());
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue({ maxDepth: 1 }),
        fc.array(tie('node'), { maxLength: 3 }),
        tie('obj'),
      ),
      obj: fc.dictionary(key, tie('node'), { maxKeys: 4 }),
    })).obj;
    fc.assert(
      fc.property(value, (obj) => {
        const text = JSON.stringify(obj);
        expect(JSON.parse(canonicalJson(JSON.parse(text)))).toEqual(JSON.parse(text));
      }),
    );
  });
});

describe('usage', () => {
  it('adds tokens and keeps unknown cost unknown', () => {
    const t = { input: 1, output: 2, reasoning: 3, cache: { read: 4, write: 5 } };
    expect(addTokens(t, t)).toEqual({ input: 2, output: 4, reasoning: 6, cache: { read: 8, write: 10 } });
    expect(addTokens(emptyTokens(), t)).toEqual(t);
    expect(addCost(1, 2)).toBe(3);
    expect(addCost(1, null)).toBeNull();
    expect(addCost(null, 0)).toBeNull();
  });
});

describe('schemas', () => {
  it('Task fills defaults and names bad fields', () => {
    expect(Task.parse({ id: 'a', objective: 'b' })).toEqual({
      id: 'a',
      objective: 'b',
      inputs: {},
      resources: {},
      budget: {},
      successCriteria: [],
      metadata: {},
    });
    const r = Task.safeParse({ id: 'a', objective: 'b', budget: { maxSteps: -1 } });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0].path).toEqual(['budget', 'maxSteps']);
  });

  it('Decision is a closed union', () => {
    expect(Decision.safeParse({ mode: 'act', actions: [] }).success).toBe(false);
    expect(Decision.safeParse({ mode: 'jump' }).success).toBe(false);
    expect(Decision.safeParse({ mode: 'branch', candidates: [{ mode: 'final', answer: 'x' }] }).success).toBe(true);
    expect(Decision.safeParse({ mode: 'branch', candidates: [{ mode: 'branch', candidates: [] }] }).success).toBe(
      false,
    );
  });

  it('ToolState requires the timestamps of each move', () => {
    expect(
      ToolState.safeParse({ status: 'completed', input: {}, output: 'x', time: { created: 1, start: 2 } }).success,
    ).toBe(false);
    expect(
      ToolState.safeParse({
        status: 'completed',
        input: {},
        output: 'x',
        time: { created: 1, start: 2, end: 3, compacted: 4 },
      }).success,
    ).toBe(true);
  });

  it('StepRecord rejects a record without a state diff', () => {
    expect(
      StepRecord.safeParse({
        step: 1,
        startedAt: 0,
        durationMs: 0,
        phases: {},
        observation: null,
        decision: null,
        results: [],
      }).success,
    ).toBe(false);
  });
});

describe('toModelMessages', () => {
  const tool = (status: 'completed' | 'running' | 'error', extra: Record<string, unknown> = {}) => ({
    id: 'p',
    type: 'tool' as const,
    callID: `c_${status}`,
    tool: 'read',
    origin: 'native' as const,
    state:
      status === 'completed'
        ? { status, input: { path: 'a' }, output: 'file body', time: { created: 1, start: 1, end: 2, ...extra } }
        : status === 'error'
          ? { status, input: { path: 'a' }, error: 'ENOENT', time: { created: 1, start: 1, end: 2 } }
          : { status, input: { path: 'a' }, time: { created: 1, start: 1 } },
  });
  const history = (parts: unknown[]): MessageT[] => [
    Message.parse({
      role: 'assistant',
      info: { id: 'm', role: 'assistant', time: { created: 0 }, tokens: emptyTokens(), cost: 0 },
      parts,
    }),
  ];

  it('renders compacted outputs as a placeholder and interrupted tools as errors', () => {
    const out = toModelMessages(history([tool('completed', { compacted: 5 }), tool('running'), tool('error')]));
    expect(out[1]).toEqual({
      role: 'tool',
      content: [
        { type: 'tool-result', callId: 'c_completed', name: 'read', output: COMPACTED_PLACEHOLDER, isError: false },
        { type: 'tool-result', callId: 'c_running', name: 'read', output: INTERRUPTED_TOOL_ERROR, isError: true },
        { type: 'tool-result', callId: 'c_error', name: 'read', output: 'ENOENT', isError: true },
      ],
    });
  });

  it('passes reasoning back with its signature and drops step boundaries', () => {
    const out = toModelMessages(
      history([
        { id: 'a', type: 'step-start' },
        { id: 'b', type: 'reasoning', text: 'why', signature: 'sig', time: { start: 1, end: 2 } },
        { id: 'c', type: 'text', text: 'hi' },
        { id: 'd', type: 'step-finish', reason: 'stop', tokens: emptyTokens(), cost: null },
      ]),
    );
    expect(out).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'why', signature: 'sig' },
          { type: 'text', text: 'hi' },
        ],
      },
    ]);
  });
});

describe('applyStateDiff', () => {
  it('sets, splices and unsets top-level keys without touching the input', () => {
    const s = { a: 1, b: 2, list: [1, 2, 3] };
    const out = applyStateDiff(s, { set: { a: 5 }, unset: ['b'], splice: { list: { at: 1, items: [9] } } });
    expect(out).toEqual({ a: 5, list: [1, 9] });
    expect(s).toEqual({ a: 1, b: 2, list: [1, 2, 3] });
  });
});
