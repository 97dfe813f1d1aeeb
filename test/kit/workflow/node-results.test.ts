import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type Model } from '../../../src/core/index.js';
import { ScriptedModel } from '../../../src/kit/testing/index.js';
import {
  LLMNodeConfig,
  WorkflowAgent,
  WorkflowDefinition,
  llmNodeModelId,
  parseWorkflowYaml,
  runWorkflow,
} from '../../../src/kit/workflow/index.js';
import { readTrace } from '../../../src/trace/index.js';
import { viewData } from '../../../src/app/view/view-data.js';

const dir = mkdtempSync(join(tmpdir(), 'qitos-wf-results-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const slow = defineTool({
  id: 'slow',
  description: 'Takes its time.',
  parameters: z.object({ ms: z.number() }),
  execute: async ({ ms }) => (await new Promise((r) => setTimeout(r, ms)), `waited ${ms}`),
});

describe('node results carry their execution time (seed 001 section 4)', () => {
  it('in the thread state, the trace and the view', async () => {
    const flow = WorkflowDefinition.create({
      name: 'timed',
      nodes: [
        { kind: 'start', id: 's' },
        { kind: 'tool', id: 'wait', toolName: 'slow', parameters: { ms: 60 } },
        // two turns: the time covers both, and the tool call between them
        { kind: 'llm', id: 'ask', userPrompt: 'go', toolMode: 'auto', availableTools: ['slow'] },
        { kind: 'end', id: 'e', result: '{{ask}}' },
      ],
      edges: [
        { from: 's', to: 'wait' },
        { from: 'wait', to: 'ask' },
        { from: 'ask', to: 'e' },
      ],
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'slow', args: { ms: 40 } }] }, 'ok']);
    const r = await runWorkflow(flow, { model, tools: [slow], trace: { dir } });
    expect(r.status).toBe('completed');
    const rec = (id: string) => r.run.state.thread.completed.find((c) => c.node === id)!;
    expect(rec('wait').executionTimeMs).toBeGreaterThanOrEqual(55);
    expect(rec('ask').executionTimeMs).toBeGreaterThanOrEqual(35);
    for (const c of r.run.state.thread.completed) expect(c.executionTimeMs).toEqual(expect.any(Number));
    // the trace rebuilds the same records, and the viewer shows them per node
    const trace = await readTrace(r.traceDir!);
    const wf = viewData([trace]).runs[0]!.workflow!;
    const node = (id: string) => wf.nodes.find((n) => n.id === id)!;
    expect(node('wait').executionTimeMs).toBe(rec('wait').executionTimeMs);
    expect(node('ask').executionTimeMs).toBe(rec('ask').executionTimeMs);
  });

  it("a node step's state diff appends the node's record to the thread, and the page lists it without its content", async () => {
    const flow = WorkflowDefinition.create({
      name: 'two',
      nodes: [
        { kind: 'start', id: 's' },
        { kind: 'tool', id: 't1', toolName: 'tick', parameters: {} },
        { kind: 'tool', id: 't2', toolName: 'tick', parameters: {} },
        { kind: 'end', id: 'e' },
      ],
      edges: [
        { from: 's', to: 't1' },
        { from: 't1', to: 't2' },
        { from: 't2', to: 'e' },
      ],
    });
    const tick = defineTool({ id: 'tick', description: 'ok', parameters: z.object({}), execute: () => 'ok' });
    const r = await runWorkflow(flow, { tools: [tick], trace: { dir } });
    expect(r.status).toBe('completed');
    expect(Object.isFrozen(r.run.state.thread.completed[0])).toBe(true);
    const trace = await readTrace(r.traceDir!);
    const at = trace.steps.findIndex((st) => st.stateDiff.patch?.thread?.splice?.completed);
    expect(at).toBeGreaterThanOrEqual(0);
    const thread = trace.steps[at].stateDiff.patch!.thread;
    // The thread is patched (its scalars set, its lists spliced), not written whole.
    expect(trace.steps[at].stateDiff.set?.thread).toBeUndefined();
    expect(thread.splice!.completed.items).toHaveLength(1);
    const page = viewData([trace]).steps[0][at] as { state: { patch: { thread: { splice: unknown } } } };
    expect(page.state.patch.thread.splice).toEqual({ completed: { at: thread.splice!.completed.at, items: [null] } });
  });

  it('a trace written before the time was recorded shows no time, not zero', async () => {
    const flow = WorkflowDefinition.create({
      name: 'old',
      nodes: [
        { kind: 'start', id: 's' },
        { kind: 'end', id: 'e' },
      ],
      edges: [{ from: 's', to: 'e' }],
    });
    const r = await runWorkflow(flow, { model: new ScriptedModel([]), trace: { dir } });
    const trace = await readTrace(r.traceDir!);
    const strip = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(strip);
      else if (v && typeof v === 'object') {
        delete (v as { executionTimeMs?: number }).executionTimeMs;
        Object.values(v).forEach(strip);
      }
    };
    strip(trace.steps);
    const nodes = viewData([trace]).runs[0]!.workflow!.nodes;
    expect(nodes.map((n) => n.executionTimeMs)).toEqual([null, null]);
  });
});

describe('LLM nodes name provider and model as the seed does', () => {
  const flow = (llm: Record<string, unknown>) =>
    WorkflowDefinition.create({
      nodes: [
        { kind: 'start', id: 's' },
        { kind: 'llm', id: 'ask', userPrompt: 'hi', ...llm },
        { kind: 'end', id: 'e', result: '{{ask}}' },
      ],
      edges: [
        { from: 's', to: 'ask' },
        { from: 'ask', to: 'e' },
      ],
    });

  it('provider + model reach the resolver as provider:model, also from YAML', async () => {
    const yaml = [
      'name: seed-shape',
      'nodes:',
      '  - { kind: start, id: s }',
      '  - { kind: llm, id: ask, provider: ollama, model: "llama3:8b", userPrompt: hi, temperature: 0.2 }',
      '  - { kind: end, id: e, result: "{{ask}}" }',
      'edges:',
      '  - { from: s, to: ask }',
      '  - { from: ask, to: e }',
    ].join('\n');
    const def = parseWorkflowYaml(yaml, 'seed-shape.yaml');
    const node = def.node('ask') as LLMNodeConfig;
    expect(llmNodeModelId(node)).toBe('ollama:llama3:8b');
    const asked: string[] = [];
    const nodeModel = new ScriptedModel(['from the node model']);
    const r = await runWorkflow(def, {
      model: new ScriptedModel([]),
      trace: false,
      resolveModel: (id): Model => (asked.push(id), nodeModel),
    });
    expect(r.output).toBe('from the node model');
    expect(asked).toEqual(['ollama:llama3:8b']);
    // model alone keeps its provider:model form
    expect(llmNodeModelId(LLMNodeConfig.create({ id: 'n', userPrompt: 'p', model: 'openai:gpt-4o' }))).toBe(
      'openai:gpt-4o',
    );
  });

  it('refuses a provider without a model, a model that repeats the provider, and a bad provider name', () => {
    expect(() => flow({ provider: 'openai' })).toThrow(
      'node "ask" (llm): model: provider "openai" needs a model (the provider\'s model name, e.g. model: gpt-4o)',
    );
    expect(() => flow({ provider: 'openai', model: 'openai:gpt-4o' })).toThrow(
      'with provider: openai, write model: gpt-4o',
    );
    expect(() => flow({ provider: 'Open AI', model: 'x' })).toThrow(/node "ask" \(llm\): provider: a provider is/);
  });

  it('a node naming a provider needs a resolveModel option, named in the error', () => {
    expect(
      () =>
        new WorkflowAgent({
          workflow: flow({ provider: 'anthropic', model: 'claude-x' }),
          model: new ScriptedModel([]),
        }),
    ).toThrow('node "ask": model: "anthropic:claude-x" needs a resolveModel option on the WorkflowAgent');
  });
});
