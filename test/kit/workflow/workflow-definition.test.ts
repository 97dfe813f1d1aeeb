import { describe, expect, it } from 'vitest';
import {
  LLMNodeConfig,
  WorkflowDefinition,
  WorkflowError,
  checkWorkflow,
  parseWorkflowYaml,
} from '../../../src/kit/workflow/index.js';
import { yamlBomb } from '../../helpers/yaml-bomb.js';

type Node = Record<string, unknown>;
type Flow = { name?: string; nodes: Node[]; edges: Array<{ from: string; to: string }> };

/** start -> ask -> call -> check -> (then: done | else: ask) is a cycle; the base here is acyclic. */
const base = (): Flow => ({
  name: 'base',
  nodes: [
    { kind: 'start', id: 'start' },
    { kind: 'llm', id: 'ask', userPrompt: 'Find {{topic}}' },
    { kind: 'tool', id: 'call', toolName: 'lookup', parameters: { q: '{{ask}}' } },
    { kind: 'condition', id: 'check', expression: 'call == "ok"', then: 'done', else: 'fallback' },
    { kind: 'end', id: 'fallback' },
    { kind: 'end', id: 'done' },
  ],
  edges: [
    { from: 'start', to: 'ask' },
    { from: 'ask', to: 'call' },
    { from: 'call', to: 'check' },
  ],
});

const problems = (input: Flow) => checkWorkflow(WorkflowDefinition.unchecked(input)).map((p) => p.message);

describe('WorkflowDefinition', () => {
  it('accepts a well-formed workflow, built from JSON or node configs', () => {
    const def = WorkflowDefinition.create(base());
    expect(def.start.id).toBe('start');
    expect(def.successors('ask')).toEqual(['call']);
    const again = WorkflowDefinition.create({
      ...base(),
      nodes: base().nodes.map((n) => (n.kind === 'llm' ? LLMNodeConfig.create(n as never) : n)),
    });
    expect(again.node('ask').equals(def.node('ask'))).toBe(true);
    expect(again.toJSON()).toEqual(def.toJSON());
    expect(WorkflowDefinition.create(def.toJSON()).toJSON()).toEqual(def.toJSON());
  });

  it('gives one frozen JSON form that every run of it records, and a spread copy that can change', () => {
    const def = WorkflowDefinition.create(base());
    const json = def.toJSON();
    expect(def.toJSON()).toBe(json);
    expect(() => (json.nodes as Node[]).push({ kind: 'end', id: 'more' })).toThrow(TypeError);
    expect(() => ((json.nodes[1] as Node).userPrompt = 'changed')).toThrow(TypeError);
    const copy = structuredClone(json);
    copy.nodes.push({ kind: 'end', id: 'more' });
    expect(def.toJSON().nodes).toHaveLength(6);
    expect(WorkflowDefinition.create({ ...json, name: 'renamed' }).toJSON().name).toBe('renamed');
  });

  it('refuses a workflow without a start or without an end', () => {
    const b = base();
    expect(
      problems({
        ...b,
        nodes: b.nodes.filter((n) => n.kind !== 'start'),
        edges: b.edges.filter((e) => e.from !== 'start'),
      }),
    ).toContain('the workflow has no start node (a node of kind "start")');
    const noEnd = {
      ...b,
      nodes: [
        ...b.nodes.filter((n) => n.kind !== 'end' && n.kind !== 'condition'),
        { kind: 'tool', id: 'last', toolName: 'x' },
      ],
      edges: [...b.edges.filter((e) => e.to !== 'check'), { from: 'call', to: 'last' }],
    };
    expect(problems(noEnd)).toContain('the workflow has no end node (a node of kind "end")');
  });

  it('refuses edges to unknown nodes and conditions going nowhere', () => {
    expect(problems({ ...base(), edges: [...base().edges.slice(0, 2), { from: 'call', to: 'nowhere' }] })).toContain(
      'edge call -> nowhere: there is no node "nowhere"',
    );
    const b = base();
    b.nodes[3] = { ...b.nodes[3], then: 'ghost' };
    expect(problems(b)).toContain('condition "check" goes to "ghost", which is not a node');
  });

  it('refuses unreachable nodes', () => {
    const b = base();
    b.nodes.push({ kind: 'tool', id: 'orphan', toolName: 'x' });
    b.edges.push({ from: 'orphan', to: 'done' });
    expect(problems(b)).toEqual(['node "orphan" cannot be reached from the start "start"']);
  });

  it('refuses a join without its fork, and a fork without its join', () => {
    const flow = (joinFork: string, withJoin = true): Flow => ({
      nodes: [
        { kind: 'start', id: 's' },
        { kind: 'fork', id: 'f' },
        { kind: 'tool', id: 'a', toolName: 'x' },
        { kind: 'tool', id: 'b', toolName: 'x' },
        ...(withJoin ? [{ kind: 'join', id: 'j', fork: joinFork }] : [{ kind: 'tool', id: 'j', toolName: 'x' }]),
        { kind: 'end', id: 'e' },
      ],
      edges: [
        { from: 's', to: 'f' },
        { from: 'f', to: 'a' },
        { from: 'f', to: 'b' },
        { from: 'a', to: 'j' },
        { from: 'b', to: 'j' },
        { from: 'j', to: 'e' },
      ],
    });
    expect(() => WorkflowDefinition.create(flow('f'))).not.toThrow();
    expect(problems(flow('nofork'))).toEqual(['join "j" joins "nofork", which is not a node']);
    expect(problems(flow('a'))).toEqual(['join "j" joins "a", which is a tool node, not a fork']);
    expect(problems(flow('f', false))).toEqual(['fork "f" has no join (a join node with fork: f)']);
    const early = flow('f');
    early.nodes.push({ kind: 'end', id: 'e2' });
    early.edges = early.edges.map((e) => (e.from === 'b' ? { from: 'b', to: 'e2' } : e));
    expect(problems(early)).toEqual([
      'branch "b" of fork "f" never reaches its join "j"',
      'branch "b" of fork "f" can reach end "e2" before its join "j"',
    ]);
  });

  it('refuses a loop without a bound (a cycle of edges) and a loop end without its start; accepts a bounded loop', () => {
    const b = base();
    b.nodes[3] = { ...b.nodes[3], else: 'ask' };
    expect(problems(b)).toEqual([
      'the edges ask -> call -> check -> ask form a loop without a bound: use a loop-start (with max) and a loop-end',
      'node "fallback" cannot be reached from the start "start"',
    ]);
    const bounded: Flow = {
      nodes: [
        { kind: 'start', id: 's' },
        { kind: 'loop-start', id: 'loop', max: 3 },
        { kind: 'tool', id: 'tick', toolName: 'x' },
        { kind: 'loop-end', id: 'again', loop: 'loop', while: 'tick != "stop"' },
        { kind: 'end', id: 'e' },
      ],
      edges: [
        { from: 's', to: 'loop' },
        { from: 'loop', to: 'tick' },
        { from: 'tick', to: 'again' },
        { from: 'again', to: 'e' },
      ],
    };
    expect(() => WorkflowDefinition.create(bounded)).not.toThrow();
    expect(() =>
      WorkflowDefinition.create({
        ...bounded,
        nodes: bounded.nodes.map((n) => (n.kind === 'loop-start' ? { kind: 'loop-start', id: 'loop' } : n)),
      }),
    ).toThrow(/node "loop" \(loop-start\): max: /);
    expect(
      problems({ ...bounded, nodes: bounded.nodes.map((n) => (n.kind === 'loop-end' ? { ...n, loop: 'tick' } : n)) }),
    ).toContain('loop end "again" closes "tick", which is a tool node, not a loop start');
  });

  it('refuses a bad expression, duplicate ids and wrong edge counts', () => {
    const b = base();
    b.nodes[3] = { ...b.nodes[3], expression: 'call ==' };
    expect(problems(b)[0]).toMatch(/^node "check": expression: /);
    expect(() =>
      WorkflowDefinition.create({ ...base(), nodes: [...base().nodes, { kind: 'end', id: 'done' }] }),
    ).toThrow('node id "done" is used by more than one node');
    expect(problems({ ...base(), edges: [...base().edges, { from: 'ask', to: 'done' }] })).toContain(
      'node "ask" (llm) needs exactly one edge out, has 2',
    );
  });
});

describe('parseWorkflowYaml', () => {
  const yaml = `name: demo
nodes:
  - id: start
    kind: start
  - id: ask
    kind: llm
    userPrompt: "Say {{x}}"
    temperature: 9
  - id: end
    kind: end
edges:
  - { from: start, to: ask }
  - { from: ask, to: end }
`;
  const fail = (text: string) => {
    try {
      parseWorkflowYaml(text, 'flow.yaml');
    } catch (e) {
      return e as WorkflowError;
    }
    throw new Error('expected a WorkflowError');
  };

  it('names the line and column of an invalid node field', () => {
    const e = fail(yaml);
    expect(e.message).toMatch(/^flow\.yaml:8:18: node "ask" \(llm\): temperature: /);
    expect([e.line, e.column, e.nodeId, e.field]).toEqual([8, 18, 'ask', 'temperature']);
  });

  it('names the line and column of what the checker refuses', () => {
    const e = fail(yaml.replace('temperature: 9', 'temperature: 1').replace('to: end }', 'to: nowhere }'));
    expect(e.message).toBe('flow.yaml:13:5: edge ask -> nowhere: there is no node "nowhere"');
    const orphan = fail(
      yaml.replace('temperature: 9', 'temperature: 1').replace('edges:', '  - id: lost\n    kind: end\nedges:'),
    );
    expect(orphan.message).toBe('flow.yaml:11:5: node "lost" cannot be reached from the start "start"');
  });

  it('names the line and column of a YAML syntax error', () => {
    expect(fail('nodes: [\n  - a: b\n').message).toMatch(/^flow\.yaml:\d+:\d+: YAML syntax error: /);
    expect(fail('- 1\n').message).toBe('flow.yaml:1:1: a workflow file is a mapping with nodes and edges');
  });

  it('a YAML alias bomb is an error at its first alias (file:line:col), not an internal error', () => {
    const e = fail(`name: x\n${yamlBomb('v')}nodes: []\n`);
    expect(e).toBeInstanceOf(WorkflowError);
    expect([e.message, e.line, e.column]).toEqual([
      'flow.yaml:3:9: YAML aliases expand to too much data (more than 100 alias expansions; the first alias is here)',
      3,
      9,
    ]);
  });

  it('parses a valid file', () => {
    const def = parseWorkflowYaml(yaml.replace('temperature: 9', 'temperature: 1'), 'flow.yaml');
    expect(def.node('ask').kind).toBe('llm');
    expect(def.source?.nodes?.get('ask')).toEqual({ line: 5, column: 5 });
  });
});
