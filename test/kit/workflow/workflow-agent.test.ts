import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../../src/core/index.js';
import { ScriptedModel } from '../../../src/kit/testing/index.js';
import { WorkflowAgent, WorkflowDefinition, runWorkflow } from '../../../src/kit/workflow/index.js';

const dir = mkdtempSync(join(tmpdir(), 'qitos-wf-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lookups: Array<Record<string, unknown>> = [];
const lookup = defineTool({
  id: 'lookup',
  description: 'Looks a word up.',
  parameters: z.object({ q: z.string() }),
  execute: ({ q }) => {
    lookups.push({ q });
    return q === 'cats' ? 'found' : 'missing';
  },
});
const weather = defineTool({
  id: 'weather',
  description: 'Weather of a city.',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => `sunny in ${city}`,
});

const pipeline = () =>
  WorkflowDefinition.create({
    name: 'pipeline',
    vars: { topic: 'animals' },
    nodes: [
      { kind: 'start', id: 'start' },
      {
        kind: 'llm',
        id: 'pick',
        systemPrompt: 'You pick words.',
        userPrompt: 'Pick one word about {{topic}}; check the weather first.',
        toolMode: 'auto',
        availableTools: ['weather'],
        output: 'word',
      },
      { kind: 'tool', id: 'check', toolName: 'lookup', parameters: { q: '{{word}}' } },
      { kind: 'condition', id: 'found', expression: 'check == "found"', then: 'yes', else: 'no' },
      { kind: 'end', id: 'yes', result: '{{word}} was found' },
      { kind: 'end', id: 'no', result: '{{word}} was not found' },
    ],
    edges: [
      { from: 'start', to: 'pick' },
      { from: 'pick', to: 'check' },
      { from: 'check', to: 'found' },
    ],
  });

describe('WorkflowAgent', () => {
  it('runs llm (with a tool loop) -> tool -> condition -> end on the scripted model, recording each node in the trace', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'weather', args: { city: 'Oslo' } }], usage: { input: 10, output: 3 } },
      { text: 'cats', usage: { input: 20, output: 1 } },
    ]);
    const r = await runWorkflow(pipeline(), { model, tools: [lookup, weather], trace: { dir } });
    expect(r.status).toBe('completed');
    expect(r.output).toBe('cats was found');
    expect(r.vars).toMatchObject({ topic: 'animals', word: 'cats', check: 'found' });
    const thread = r.run.state.thread;
    expect(thread.completed.map((c) => `${c.node}:${c.status}`)).toEqual([
      'start:done',
      'pick:done',
      'check:done',
      'found:done',
      'yes:done',
    ]);
    const pick = thread.completed[1];
    expect(pick.inputs).toEqual({ userPrompt: 'Pick one word about animals; check the weather first.' });
    expect(pick.outputs).toMatchObject({ text: 'cats', iterations: 2, toolCalls: 1, stoppedBy: 'answer' });
    expect(pick.tokens).toMatchObject({ input: 30, output: 4 });
    expect(thread.tokens.pick).toMatchObject({ input: 30, output: 4 });
    expect(thread.completed[2]).toMatchObject({ inputs: { q: 'cats' }, outputs: { output: 'found' } });
    expect(thread.completed[3]).toMatchObject({ outputs: { value: true, next: 'yes' } });
    // the model saw the system prompt, the rendered prompt, only its allowed tool, then the tool's result
    expect(model.requests[0].messages[0]).toEqual({ role: 'system', content: 'You pick words.' });
    expect(model.requests[0].tools?.map((t) => t.name)).toEqual(['weather']);
    expect(JSON.stringify(model.requests[1].messages)).toContain('sunny in Oslo');
    expect(r.run.usage.tokens.input).toBe(30);
    // the trace holds every node step: the weather call as an action, each node's record in the state diff
    const steps = readFileSync(join(r.traceDir!, 'steps.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(steps).toHaveLength(6);
    expect(steps[1].decision.actions[0]).toMatchObject({ name: 'weather', args: { city: 'Oslo' } });
    expect(steps[3].results[0]).toMatchObject({ name: 'lookup', status: 'success', output: 'found' });
    expect(JSON.stringify(steps[3].stateDiff)).toContain('"q":"cats"');
  });

  it('takes the else branch', async () => {
    const r = await runWorkflow(pipeline(), {
      model: new ScriptedModel(['dogs']),
      tools: [lookup, weather],
      trace: false,
    });
    expect(r.output).toBe('dogs was not found');
  });

  it('a loop stops at its bound even when its condition still holds', async () => {
    let n = 0;
    const tick = defineTool({
      id: 'tick',
      description: 'Counts.',
      parameters: z.object({}),
      execute: () => String(++n),
    });
    const def = WorkflowDefinition.create({
      nodes: [
        { kind: 'start', id: 's' },
        { kind: 'loop-start', id: 'loop', max: 3 },
        { kind: 'tool', id: 'count', toolName: 'tick' },
        { kind: 'loop-end', id: 'again', loop: 'loop', while: 'true' },
        { kind: 'end', id: 'e', result: 'count={{count}}' },
      ],
      edges: [
        { from: 's', to: 'loop' },
        { from: 'loop', to: 'count' },
        { from: 'count', to: 'again' },
        { from: 'again', to: 'e' },
      ],
    });
    const r = await runWorkflow(def, { model: new ScriptedModel([]), tools: [tick], trace: false });
    expect(r.output).toBe('count=3');
    expect(n).toBe(3);
    const ends = r.run.state.thread.completed.filter((c) => c.node === 'again').map((c) => c.outputs);
    expect(ends).toEqual([
      { round: 1, again: true },
      { round: 2, again: true },
      { round: 3, again: false, bound: 3 },
    ]);
    expect(r.run.state.thread.loops).toEqual({});
    // and leaves early when the condition fails
    n = 0;
    const early = await runWorkflow(
      WorkflowDefinition.create({
        ...def.toJSON(),
        nodes: def.toJSON().nodes.map((x) => (x.id === 'again' ? { ...x, while: 'count != "2"' } : x)),
      }),
      { model: new ScriptedModel([]), tools: [tick], trace: false },
    );
    expect(early.output).toBe('count=2');
  });

  it('retries a failing tool node, then fails the workflow with the node and error', async () => {
    let calls = 0;
    const flaky = defineTool({
      id: 'flaky',
      description: 'Fails.',
      parameters: z.object({}),
      execute: () => {
        calls++;
        throw new Error('boom');
      },
    });
    const def = WorkflowDefinition.create({
      nodes: [
        { kind: 'start', id: 's' },
        { kind: 'tool', id: 'f', toolName: 'flaky', retries: 2 },
        { kind: 'end', id: 'e' },
      ],
      edges: [
        { from: 's', to: 'f' },
        { from: 'f', to: 'e' },
      ],
    });
    const r = await runWorkflow(def, { model: new ScriptedModel([]), tools: [flaky], trace: false });
    expect(calls).toBe(3);
    expect(r.status).toBe('failed');
    expect(r.reason).toBe('node "f" (tool) failed: boom');
    expect(r.run.stopReason).toBe('agent_condition');
    const cont = await runWorkflow(
      WorkflowDefinition.create({
        ...def.toJSON(),
        nodes: def.toJSON().nodes.map((x) => (x.id === 'f' ? { ...x, retries: 0, onError: 'continue' } : x)),
      }),
      { model: new ScriptedModel([]), tools: [flaky], trace: false },
    );
    expect(cont.status).toBe('completed');
    expect(cont.run.state.thread.completed[1]).toMatchObject({ node: 'f', status: 'error', error: 'boom' });
  });

  it('an llm node stops at maxIterations; a call to a tool it was not given is refused to the model', async () => {
    const def = WorkflowDefinition.create({
      nodes: [
        { kind: 'start', id: 's' },
        { kind: 'llm', id: 'l', userPrompt: 'go', toolMode: 'auto', availableTools: ['weather'], maxIterations: 2 },
        { kind: 'end', id: 'e' },
      ],
      edges: [
        { from: 's', to: 'l' },
        { from: 'l', to: 'e' },
      ],
    });
    const model = new ScriptedModel([
      { text: 'first', toolCalls: [{ name: 'lookup', args: { q: 'x' } }] },
      { text: 'second', toolCalls: [{ name: 'weather', args: { city: 'Rome' } }] },
    ]);
    const before = lookups.length;
    const r = await runWorkflow(def, { model, tools: [lookup, weather], trace: false });
    expect(lookups.length).toBe(before);
    expect(JSON.stringify(model.requests[1].messages)).toContain(
      'tool \\"lookup\\" is not available here; available: weather',
    );
    expect(r.vars.l).toBe('second');
    expect(r.run.state.thread.completed[1].outputs).toMatchObject({
      iterations: 2,
      toolCalls: 2,
      stoppedBy: 'maxIterations',
    });
  });

  it('refuses at construction a node naming a tool, reducer or processor the agent lacks', () => {
    expect(() => new WorkflowAgent({ workflow: pipeline(), tools: [weather] })).toThrow(
      'node "check": toolName: there is no tool "lookup"; registered: weather',
    );
    const ctx = WorkflowDefinition.create({
      nodes: [
        { kind: 'start', id: 's' },
        { kind: 'context', id: 'c', processor: 'mine' },
        { kind: 'end', id: 'e' },
      ],
      edges: [
        { from: 's', to: 'c' },
        { from: 'c', to: 'e' },
      ],
    });
    expect(() => new WorkflowAgent({ workflow: ctx })).toThrow(/node "c": processor: "mine" is not registered/);
    expect(() => new WorkflowAgent({ workflow: ctx, processors: { mine: (m) => [...m] } })).not.toThrow();
  });

  it('an interrupt waits for its variable, and goes on when it is given', async () => {
    const def = WorkflowDefinition.create({
      nodes: [
        { kind: 'start', id: 's' },
        { kind: 'interrupt', id: 'ask', prompt: 'Approve {{topic}}?', variable: 'approved' },
        { kind: 'end', id: 'e', result: 'approved={{approved}}' },
      ],
      edges: [
        { from: 's', to: 'ask' },
        { from: 'ask', to: 'e' },
      ],
      vars: { topic: 'the plan' },
    });
    const waiting = await runWorkflow(def, { model: new ScriptedModel([]), trace: false });
    expect(waiting.status).toBe('waiting');
    expect(waiting.reason).toBe('node "ask" asks: Approve the plan? (set the variable "approved" and resume)');
    expect(
      (await runWorkflow(def, { model: new ScriptedModel([]), trace: false, vars: { approved: 'yes' } })).output,
    ).toBe('approved=yes');
    expect(
      (
        await runWorkflow(def, {
          model: new ScriptedModel([]),
          trace: false,
          onInterrupt: ({ prompt }) => `ok: ${prompt}`,
        })
      ).output,
    ).toBe('approved=ok: Approve the plan?');
  });
});
