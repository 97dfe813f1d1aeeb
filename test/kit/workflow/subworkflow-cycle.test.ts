import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../../src/kit/testing/index.js';
import { WorkflowDefinition, WorkflowError, loadWorkflowFile, runWorkflow } from '../../../src/kit/workflow/index.js';
import { echo } from '../../helpers/workflow-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'qitos-wf-cycle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** start -> (the given middle node) -> end. */
const flow = (name: string, middle: Record<string, unknown>) => ({
  name,
  nodes: [
    { kind: 'start', id: 's' },
    { id: 'm', ...middle },
    { kind: 'end', id: 'e' },
  ],
  edges: [
    { from: 's', to: 'm' },
    { from: 'm', to: 'e' },
  ],
});
const sub = (path: string) => ({ kind: 'subworkflow', path });
const write = (file: string, content: unknown) =>
  writeFileSync(join(dir, file), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
const refusal = async (file: string) => {
  const err = await loadWorkflowFile(file, dir).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowError);
  return (err as WorkflowError).message;
};

describe('a subworkflow that includes itself', () => {
  it('is refused when its file is loaded (workflow check, run), naming the chain of files and nodes', async () => {
    write('self.json', flow('self', sub('self.json')));
    expect(await refusal('self.json')).toBe(
      'self.json:8:5: subworkflow "m" includes itself: self.json (node "m") -> self.json; a workflow that includes itself never ends',
    );
    // through another file
    write('a.json', flow('a', sub('b.json')));
    write('b.json', flow('b', sub('./a.json')));
    expect(await refusal('a.json')).toMatch(
      /^a\.json:\d+:\d+: subworkflow "m" includes itself: a\.json \(node "m"\) -> b\.json \(node "m"\) -> a\.json;/,
    );
    // a file further down that loops on itself: the chain starts where the loop does
    write('top.json', flow('top', sub('self.json')));
    expect(await refusal('top.json')).toMatch(
      /: subworkflow "m" includes itself: self\.json \(node "m"\) -> self\.json;/,
    );
    // inside an inline subworkflow
    write('inline.json', flow('inline', { kind: 'subworkflow', inline: flow('inner', sub('inline.json')) }));
    expect(await refusal('inline.json')).toMatch(
      /: subworkflow "m\/m" includes itself: inline\.json \(node "m\/m"\) -> inline\.json;/,
    );
  });

  it("is refused when the loop is on a fork's branch (YAML)", async () => {
    write(
      'fork.yaml',
      [
        'name: fork',
        'nodes:',
        '  - { kind: start, id: s }',
        '  - { kind: fork, id: f }',
        '  - { kind: subworkflow, id: again, path: fork.yaml }',
        '  - { kind: tool, id: other, toolName: echo, parameters: { text: x } }',
        '  - { kind: join, id: j, fork: f }',
        '  - { kind: end, id: e }',
        'edges:',
        '  - { from: s, to: f }',
        '  - { from: f, to: again }',
        '  - { from: f, to: other }',
        '  - { from: again, to: j }',
        '  - { from: other, to: j }',
        '  - { from: j, to: e }',
        '',
      ].join('\n'),
    );
    expect(await refusal('fork.yaml')).toBe(
      'fork.yaml:5:5: subworkflow "again" includes itself: fork.yaml (node "again") -> ' +
        'fork.yaml; a workflow that includes itself never ends',
    );
  });

  it('files that include others without a loop load; a missing file is left to the run', async () => {
    write('leaf.json', flow('leaf', { kind: 'tool', toolName: 'echo', parameters: { text: 'x' } }));
    write('mid.json', flow('mid', sub('leaf.json')));
    write('diamond.json', {
      ...flow('diamond', sub('mid.json')),
      nodes: [
        { kind: 'start', id: 's' },
        { kind: 'subworkflow', id: 'm', path: 'mid.json' },
        { kind: 'subworkflow', id: 'n', path: 'leaf.json' },
        { kind: 'end', id: 'e' },
      ],
      edges: [
        { from: 's', to: 'm' },
        { from: 'm', to: 'n' },
        { from: 'n', to: 'e' },
      ],
    });
    expect((await loadWorkflowFile('diamond.json', dir)).name).toBe('diamond');
    write('missing.json', flow('missing', sub('nowhere.json')));
    expect((await loadWorkflowFile('missing.json', dir)).name).toBe('missing');
  });
});

describe('the runtime cap on nested subworkflows', () => {
  /** A workflow that nests `depth` inline subworkflows around a tool node. */
  const nested = (depth: number): Record<string, unknown> =>
    depth === 0
      ? flow('leaf', { kind: 'tool', toolName: 'echo', parameters: { text: 'deep' } })
      : flow(`level${depth}`, { kind: 'subworkflow', inline: nested(depth - 1) });

  it('stops a run past maxSubworkflowDepth with an error naming the chain; within it, the run completes', async () => {
    const def = WorkflowDefinition.create(nested(3) as never, { name: 'nest.json', baseDir: dir });
    const ok = await runWorkflow(def, {
      model: new ScriptedModel([]),
      tools: [echo],
      trace: false,
      maxSubworkflowDepth: 3,
    });
    expect(ok.status).toBe('completed');
    const r = await runWorkflow(def, {
      model: new ScriptedModel([]),
      tools: [echo],
      trace: false,
      maxSubworkflowDepth: 2,
    });
    expect(r.status).toBe('failed');
    expect(r.reason).toContain(
      'subworkflows nest deeper than 2 (maxSubworkflowDepth): nest.json (node "m") -> ' +
        'nest.json#m (node "m") -> nest.json#m#m (node "m"); a workflow that includes itself never ' +
        'ends',
    );
  });

  it('defaults to 10 levels', async () => {
    const r = await runWorkflow(WorkflowDefinition.create(nested(11) as never, { name: 'deep.json', baseDir: dir }), {
      model: new ScriptedModel([]),
      tools: [echo],
      trace: false,
    });
    expect(r.status).toBe('failed');
    expect(r.reason).toMatch(
      /subworkflows nest deeper than 10 \(maxSubworkflowDepth\): deep\.json \(node "m"\) -> (deep\.json(#m)+ \(node "m"\) -> ){9}deep\.json(#m){10} \(node "m"\)/,
    );
  });

  it('a workflow built in code that names its own file stops at the first level', async () => {
    write('loop.json', flow('loop', sub('loop.json')));
    const def = WorkflowDefinition.create(flow('loop', sub('loop.json')) as never, { name: 'loop.json', baseDir: dir });
    const r = await runWorkflow(def, { model: new ScriptedModel([]), tools: [echo], trace: false });
    expect(r.status).toBe('failed');
    expect(r.reason).toContain('subworkflow "m" includes itself: loop.json (node "m") -> loop.json');
  });
});
