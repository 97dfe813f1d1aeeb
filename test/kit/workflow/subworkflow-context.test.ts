import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type ModelMessage } from '../../../src/core/index.js';
import { ScriptedModel } from '../../../src/kit/testing/index.js';
import { WorkflowDefinition, loadWorkflowFile, runWorkflow } from '../../../src/kit/workflow/index.js';
import { echo } from '../../helpers/workflow-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'qitos-wf-sub-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const big = defineTool({
  id: 'big',
  description: 'A long output.',
  parameters: z.object({}),
  execute: () => 'x'.repeat(2000),
});

const child = {
  name: 'child',
  nodes: [
    { kind: 'start', id: 's' },
    { kind: 'tool', id: 'shout', toolName: 'echo', parameters: { text: '{{word}}!' } },
    { kind: 'end', id: 'e' },
  ],
  edges: [
    { from: 's', to: 'shout' },
    { from: 'shout', to: 'e' },
  ],
};

const parent = (sub: Record<string, unknown>) => ({
  name: 'parent',
  vars: { word: 'hi' },
  nodes: [
    { kind: 'start', id: 's' },
    { kind: 'subworkflow', id: 'sub', ...sub },
    { kind: 'end', id: 'e', result: '{{sub.shout}}' },
  ],
  edges: [
    { from: 's', to: 'sub' },
    { from: 'sub', to: 'e' },
  ],
});

describe('subworkflow nodes', () => {
  it('run an inline workflow as a linked child thread and take its variables', async () => {
    const r = await runWorkflow(WorkflowDefinition.create(parent({ inline: child })), {
      model: new ScriptedModel([]),
      tools: [echo],
      trace: { dir },
    });
    expect(r.status).toBe('completed');
    expect(r.output).toBe('hi!');
    expect(r.vars.sub).toEqual({ word: 'hi', shout: 'hi!' });
    const rec = r.run.state.thread.completed.find((c) => c.node === 'sub')!;
    expect((rec.outputs as { traceDir: string }).traceDir.startsWith(join(r.traceDir!, 'threads'))).toBe(true);
  });

  it('run a workflow file relative to the parent file', async () => {
    writeFileSync(join(dir, 'child.json'), JSON.stringify(child));
    writeFileSync(join(dir, 'parent.json'), JSON.stringify(parent({ path: 'child.json' })));
    const def = await loadWorkflowFile(join(dir, 'parent.json'));
    const r = await runWorkflow(def, { model: new ScriptedModel([]), tools: [echo], trace: false });
    expect(r.output).toBe('hi!');
  });

  it('an inline workflow the checker refuses is refused with its parent', () => {
    const bad = { ...child, edges: [{ from: 's', to: 'shout' }] };
    expect(() => WorkflowDefinition.create(parent({ inline: bad }))).toThrow(
      'subworkflow "sub": inline workflow: node "shout" (tool) needs exactly one edge out, has 0',
    );
  });
});

describe('context processors', () => {
  /** llm (calls big twice) -> context processor -> llm: the second LLM node sees the processed context. */
  const flow = (processor: string, config: Record<string, unknown>) =>
    WorkflowDefinition.create({
      nodes: [
        { kind: 'start', id: 's' },
        { kind: 'llm', id: 'one', userPrompt: 'first', toolMode: 'auto', availableTools: ['big'] },
        { kind: 'context', id: 'ctx', processor, config },
        { kind: 'llm', id: 'two', userPrompt: 'second' },
        { kind: 'end', id: 'e' },
      ],
      edges: [
        { from: 's', to: 'one' },
        { from: 'one', to: 'ctx' },
        { from: 'ctx', to: 'two' },
        { from: 'two', to: 'e' },
      ],
    });
  const script = () => new ScriptedModel([{ toolCalls: [{ name: 'big', args: {} }] }, 'done one', 'done two']);

  it('truncate-tool-outputs cuts long tool results before the next LLM node', async () => {
    const model = script();
    const r = await runWorkflow(flow('truncate-tool-outputs', { maxChars: 10 }), { model, tools: [big], trace: false });
    const tool = model.requests[2].messages.find(
      (m): m is Extract<ModelMessage, { role: 'tool' }> => m.role === 'tool',
    )!;
    expect(tool.content[0].output).toBe('xxxxxxxxxx\n[... 1990 characters cut]');
    expect(r.run.state.thread.completed.find((c) => c.node === 'ctx')!.outputs).toMatchObject({
      messages: { before: 4, after: 4 },
    });
  });

  it('trim keeps the last messages, never starting on a tool result', async () => {
    const model = script();
    await runWorkflow(flow('trim', { keepLast: 2 }), { model, tools: [big], trace: false });
    // context was [user, assistant(call), tool, assistant]; the last 2 start on the tool result, so only the answer stays
    expect(model.requests[2].messages.map((m) => m.role)).toEqual(['assistant', 'user']);
  });

  it('a custom processor registered on the agent', async () => {
    const model = script();
    await runWorkflow(flow('forget', {}), { model, tools: [big], trace: false, processors: { forget: () => [] } });
    expect(model.requests[2].messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'second' }] }]);
  });

  it('an LLM node over its tokenLimit summarises the thread first, and records it', async () => {
    const def = WorkflowDefinition.create({
      ...flow('trim', { keepLast: 100 }).toJSON(),
      nodes: flow('trim', { keepLast: 100 })
        .toJSON()
        .nodes.map((n) => (n.id === 'two' ? { ...n, tokenLimit: 100 } : n)),
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'big', args: {} }] },
      'done one',
      { text: 'SHORT', usage: { input: 3 } },
      'done two',
    ]);
    const r = await runWorkflow(def, { model, tools: [big], trace: false });
    expect(model.requests[2].messages[0]).toMatchObject({ role: 'system' });
    // the user message stays; the round after it (the call, its result, the answer) becomes its summary
    expect(model.requests[3].messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'first' }] },
      { role: 'user', content: [{ type: 'text', text: '[Assistant Execution Summary]\n\nSHORT' }] },
      { role: 'user', content: [{ type: 'text', text: 'second' }] },
    ]);
    const two = r.run.state.thread.completed.find((c) => c.node === 'two')!;
    const { summarised } = two.outputs as { summarised: { before: number; after: number } };
    expect(summarised.before).toBeGreaterThan(800); // the 2000-character tool output, at 2.5 characters a token
    expect(summarised.after).toBeLessThan(60); // "first" and the summary message
  });
});
