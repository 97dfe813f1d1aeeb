import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type HookEvent } from '../../../src/core/index.js';
import { ScriptedModel } from '../../../src/kit/testing/index.js';
import { WorkflowDefinition, runWorkflow } from '../../../src/kit/workflow/index.js';
import { readTrace } from '../../../src/trace/index.js';

const dir = mkdtempSync(join(tmpdir(), 'qitos-wf-monitor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lookup = defineTool({
  id: 'lookup',
  description: 'Looks up.',
  parameters: z.object({ q: z.string() }),
  execute: ({ q }) => `about ${q}`,
});

describe('workflow monitor events (seed 10.3)', () => {
  it('LLM calls, tool calls, token usage and summaries are agent events in hooks and in the trace', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'lookup', args: { q: 'cats' } }], usage: { input: 20, output: 4 } },
      { text: 'Cats are independent.', usage: { input: 30, output: 6 } },
      { text: 'SUMMARY', usage: { input: 12, output: 2 } },
    ]);
    const flow = WorkflowDefinition.create({
      name: 'monitored',
      nodes: [
        { kind: 'start', id: 'start' },
        { kind: 'llm', id: 'ask', userPrompt: 'Tell me about cats.', toolMode: 'auto', availableTools: ['lookup'] },
        { kind: 'context', id: 'sum', processor: 'summarise' },
        { kind: 'end', id: 'end', result: '{{ask}}' },
      ],
      edges: [
        { from: 'start', to: 'ask' },
        { from: 'ask', to: 'sum' },
        { from: 'sum', to: 'end' },
      ],
    });
    const seen: HookEvent[] = [];
    const r = await runWorkflow(flow, {
      model,
      tools: [lookup],
      trace: { dir },
      hooks: [(e) => void (e.type === 'agent' && seen.push(e))],
    });
    expect(r.status).toBe('completed');
    const events = seen as Array<Extract<HookEvent, { type: 'agent' }>>;
    expect(events.map((e) => `${e.event}:${String(e.data.node)}`)).toEqual([
      'llm_call:ask',
      'token_usage:ask',
      'tool_call:ask',
      'llm_call:ask',
      'token_usage:ask',
      'context_summarised:sum',
    ]);
    expect(events[0].data).toMatchObject({ iteration: 1, toolCalls: 1, finishReason: expect.any(String) });
    expect(events[1].data.tokens).toMatchObject({ input: 20, output: 4 });
    expect(events[2].data).toMatchObject({ tool: 'lookup', status: 'success' });
    const summary = events[5].data as { tokensBefore: number; tokensAfter: number };
    expect(summary.tokensBefore).toBeGreaterThan(0);
    expect(summary.tokensAfter).toBeGreaterThan(0);
    const traced = (await readTrace(r.traceDir!)).events.filter((e) => e.type === 'agent');
    expect(traced.map((e) => (e.data as { event: string }).event)).toEqual(events.map((e) => e.event));
  });

  it("stream: true forwards the node's deltas to hooks as model events; stream: false does not", async () => {
    const flow = (stream: boolean) =>
      WorkflowDefinition.create({
        name: 'streamed',
        nodes: [
          { kind: 'start', id: 'start' },
          { kind: 'llm', id: 'ask', userPrompt: 'Tell me about cats.', stream },
          { kind: 'end', id: 'end', result: '{{ask}}' },
        ],
        edges: [
          { from: 'start', to: 'ask' },
          { from: 'ask', to: 'end' },
        ],
      });
    const run = async (stream: boolean) => {
      const seen: HookEvent[] = [];
      const r = await runWorkflow(flow(stream), {
        model: new ScriptedModel(['Cats are independent.']),
        trace: false,
        hooks: [(e) => void seen.push(e)],
      });
      expect(r.output).toBe('Cats are independent.');
      return seen;
    };
    const streamed = await run(true);
    const deltas = streamed.flatMap((e) =>
      e.type === 'model_event' && e.event.type === 'text-delta' ? [e.event.delta] : [],
    );
    expect(deltas.join('')).toBe('Cats are independent.');
    // the announcement comes before the first delta, so a consumer knows which node is speaking
    const announced = streamed.findIndex(
      (e) => e.type === 'agent' && e.event === 'llm_stream' && e.data.node === 'ask',
    );
    expect(announced).toBeGreaterThanOrEqual(0);
    expect(announced).toBeLessThan(streamed.findIndex((e) => e.type === 'model_event'));
    const quiet = await run(false);
    expect(quiet.filter((e) => e.type === 'model_event' || (e.type === 'agent' && e.event === 'llm_stream'))).toEqual(
      [],
    );
  });
});
