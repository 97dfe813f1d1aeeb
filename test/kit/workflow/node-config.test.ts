import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ConditionNodeConfig,
  ContextProcessorConfig,
  EndNodeConfig,
  ForkNodeConfig,
  InterruptNodeConfig,
  JoinNodeConfig,
  LLMNodeConfig,
  LoopEndNodeConfig,
  LoopStartNodeConfig,
  StartNodeConfig,
  SubworkflowNodeConfig,
  ToolNodeConfig,
  WorkflowError,
  nodeConfigFromJSON,
  type NodeConfig,
} from '../../../src/kit/workflow/index.js';

const id = fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,10}$/);
const varName = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/);
const text = fc.string({ minLength: 1, maxLength: 30 });
const json = fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

/** Every node kind with arbitrary valid fields. */
const anyNode: fc.Arbitrary<NodeConfig> = fc.oneof(
  fc
    .record({
      id,
      model: opt(text),
      temperature: opt(fc.double({ min: 0, max: 2, noNaN: true })),
      maxTokens: opt(fc.integer({ min: 1, max: 1e6 })),
      systemPrompt: opt(fc.string()),
      userPrompt: text,
      stream: fc.boolean(),
      toolMode: fc.constantFrom('none', 'auto', 'required' as const),
      availableTools: fc.array(text, { maxLength: 3 }),
      maxIterations: fc.integer({ min: 1, max: 50 }),
      tokenLimit: opt(fc.integer({ min: 1, max: 1e6 })),
      output: opt(varName),
    })
    .map((r) => LLMNodeConfig.create(r)),
  fc
    .record({
      id,
      toolName: fc.stringMatching(/^[a-z_]{1,12}$/),
      parameters: json,
      timeoutMs: opt(fc.integer({ min: 1, max: 1e6 })),
      retries: fc.integer({ min: 0, max: 5 }),
      onError: fc.constantFrom('fail', 'continue' as const),
    })
    .map((r) => ToolNodeConfig.create(r)),
  fc
    .record({ id, processor: fc.constantFrom('summarise', 'trim', 'truncate-tool-outputs', 'mine'), config: json })
    .map((r) => ContextProcessorConfig.create(r)),
  fc.record({ id, description: opt(fc.string()) }).map((r) => StartNodeConfig.create(r)),
  fc.record({ id, result: opt(fc.string()) }).map((r) => EndNodeConfig.create(r)),
  fc
    .record({
      id,
      onError: fc.record({
        mode: fc.constantFrom('fail', 'continue', 'retry' as const),
        retries: fc.integer({ min: 0, max: 5 }),
      }),
      concurrency: opt(fc.integer({ min: 1, max: 8 })),
    })
    .map((r) => ForkNodeConfig.create(r)),
  fc.record({ id, fork: id, merge: fc.constantFrom('all', 'first' as const) }).map((r) => JoinNodeConfig.create(r)),
  fc.record({ id, fork: id, reducer: text }).map((r) => JoinNodeConfig.create({ ...r, merge: 'custom' })),
  fc.record({ id, max: fc.integer({ min: 1, max: 1000 }) }).map((r) => LoopStartNodeConfig.create(r)),
  fc.record({ id, loop: id, while: opt(text) }).map((r) => LoopEndNodeConfig.create(r)),
  fc.record({ id, expression: text, then: id, else: id }).map((r) => ConditionNodeConfig.create(r)),
  fc.record({ id, path: text }).map((r) => SubworkflowNodeConfig.create(r)),
  fc.record({ id, prompt: text, variable: varName }).map((r) => InterruptNodeConfig.create(r)),
);

describe('node configs', () => {
  it('toJSON/fromJSON round-trips to an equal config (also through JSON text)', () => {
    fc.assert(
      fc.property(anyNode, (node) => {
        const back = nodeConfigFromJSON(JSON.parse(JSON.stringify(node.toJSON())));
        expect(back.equals(node)).toBe(true);
        expect(back.toJSON()).toEqual(node.toJSON());
      }),
    );
  });

  it('stores -0 as 0 (JSON has no -0), so the config comes back equal from its JSON text', () => {
    // the counterexample fast-check found (seed -129733904), and the same inside a list and a nested object
    const node = ToolNodeConfig.create({
      id: '0',
      toolName: '_',
      parameters: { a: -0, list: [-0, 1], deep: { b: -0 } },
    });
    expect(Object.is(node.parameters.a, 0)).toBe(true);
    const back = nodeConfigFromJSON(JSON.parse(JSON.stringify(node.toJSON())));
    expect(back.toJSON()).toEqual(node.toJSON());
    expect(back.toJSON()).toEqual({
      kind: 'tool',
      id: '0',
      toolName: '_',
      parameters: { a: 0, list: [0, 1], deep: { b: 0 } },
      retries: 0,
      onError: 'fail',
    });
  });

  it('equals is reflexive and symmetric', () => {
    fc.assert(
      fc.property(anyNode, anyNode, (a, b) => {
        expect(a.equals(a)).toBe(true);
        expect(a.equals(b)).toBe(b.equals(a));
      }),
    );
  });

  it('with() returns a new config and leaves the original unchanged', () => {
    fc.assert(
      fc.property(anyNode, id, (node, newId) => {
        const before = JSON.stringify(node.toJSON());
        const changed = node.with({ id: newId } as never);
        expect(JSON.stringify(node.toJSON())).toBe(before);
        expect(changed.id).toBe(newId);
        expect(changed.equals(node)).toBe(newId === node.id);
        expect(Object.isFrozen(changed)).toBe(true);
      }),
    );
  });

  it('is deeply frozen', () => {
    const t = ToolNodeConfig.create({ id: 't', toolName: 'x', parameters: { a: { b: 1 } } });
    expect(() => {
      (t as { toolName: string }).toolName = 'y';
    }).toThrow(TypeError);
    expect(() => {
      (t.parameters.a as { b: number }).b = 2;
    }).toThrow(TypeError);
  });

  it('fills defaults', () => {
    const n = LLMNodeConfig.create({ id: 'ask', userPrompt: 'hi {{name}}' });
    expect(n.toJSON()).toEqual({
      kind: 'llm',
      id: 'ask',
      userPrompt: 'hi {{name}}',
      stream: false,
      toolMode: 'none',
      availableTools: [],
      maxIterations: 5,
      tokenLimit: 80_000,
    });
  });

  it('an invalid config names the node id and the field', () => {
    const err = (() => {
      try {
        LLMNodeConfig.create({ id: 'ask', userPrompt: 'x', temperature: 7 });
      } catch (e) {
        return e as WorkflowError;
      }
    })();
    expect(err).toBeInstanceOf(WorkflowError);
    expect(err?.message).toMatch(/^node "ask" \(llm\): temperature: /);
    expect(err?.nodeId).toBe('ask');
    expect(err?.field).toBe('temperature');
    expect(() => ToolNodeConfig.create({ id: 'call', toolName: 'bad name!' })).toThrow(
      /node "call" \(tool\): toolName: /,
    );
    expect(() => JoinNodeConfig.create({ id: 'j', fork: 'f', merge: 'custom' })).toThrow(
      /node "j" \(join\): reducer: a custom merge needs/,
    );
    expect(() => SubworkflowNodeConfig.create({ id: 's' })).toThrow(/node "s" \(subworkflow\): path: give exactly one/);
    expect(() => LoopStartNodeConfig.create({ id: 'l' } as never)).toThrow(/node "l" \(loop-start\): max: /);
    expect(() => StartNodeConfig.create({ id: 's', extra: 1 } as never)).toThrow(
      /node "s" \(start\): extra: unknown field "extra"/,
    );
    expect(() => nodeConfigFromJSON({ kind: 'nope', id: 'n' })).toThrow(/node "n": kind: expected one of llm, tool/);
    expect(() => LLMNodeConfig.fromJSON({ kind: 'tool', id: 'n' })).toThrow(/node "n": kind: expected "llm"/);
  });
});
