import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../../src/core/index.js';
import { Engine } from '../../../src/engine/engine.js';
import { ReActAgent } from '../../../src/kit/agents/index.js';
import { jsonParser, nativeParser } from '../../../src/kit/parsers/index.js';
import { createVariableEngine, valuesProvider } from '../../../src/kit/prompts/index.js';
import { ScriptedModel } from '../../../src/models/scripted-model.js';

const add = defineTool({
  id: 'add',
  description: 'Adds two numbers.',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});
const fails = defineTool({
  id: 'fails',
  description: 'Always fails.',
  parameters: z.object({}),
  execute: () => {
    throw new Error('boom');
  },
});

function textOf(m: { content: unknown }): string {
  return typeof m.content === 'string'
    ? m.content
    : (m.content as Array<{ type: string; text?: string }>).map((p) => p.text ?? '').join('');
}

describe('ReActAgent', () => {
  it('runs a ReAct loop: tools with their schemas in the system prompt, observations back, final answer', async () => {
    const model = new ScriptedModel([
      'Thought: add first\nAction: add(a=2, b=3)',
      'Thought: and again\nAction: add(a=5, b=10)',
      'Thought: done\nFinal Answer: 15',
    ]);
    const agent = new ReActAgent({ model, tools: [add], systemPrompt: 'Be brief.' });
    const r = await new Engine({ agent, trace: false }).run('What is 2 + 3 + 10?');
    expect(r.stopReason).toBe('final');
    expect(r.finalResult).toBe('15');
    expect(r.state.metrics).toEqual({ toolCalls: 2, toolErrors: 0, actSteps: 2 });

    const system = model.requests[0].messages[0];
    expect(system.role).toBe('system');
    expect(textOf(system)).toContain('- add: Adds two numbers.');
    expect(textOf(system)).toContain('"properties":{"a":{"type":"number"},"b":{"type":"number"}}');
    expect(textOf(system).endsWith('Be brief.')).toBe(true);
    expect(textOf(model.requests[0].messages[1])).toBe('What is 2 + 3 + 10?');
    // the third request carries both observations as user messages after the model's replies
    const last = model.requests[2].messages.map((m) => `${m.role}: ${textOf(m)}`);
    expect(last).toContain('user: Observation from add: 5');
    expect(last).toContain('user: Observation from add: 15');
    expect(model.requests[0].tools).toBeUndefined();
  });

  it('feeds a parse error back with the format, then goes on', async () => {
    const model = new ScriptedModel(['The answer is 4.', 'Thought: oops\nFinal Answer: 4']);
    const r = await new Engine({ agent: new ReActAgent({ model, tools: [add] }), trace: false }).run('2+2?');
    expect(r.finalResult).toBe('4');
    const feedback = model.requests[1].messages.at(-1)!;
    expect(textOf(feedback)).toMatch(/no "Action:" and no "Final Answer:"[\s\S]*Final Answer: <the answer>/);
  });

  it('counts tool calls and tool errors per step, with several actions in one step', async () => {
    const model = new ScriptedModel([
      '{"actions": [{"name": "add", "args": {"a": 1, "b": 2}}, {"name": "fails", "args": {}}, {"name": "add", "args": {"a": "x"}}]}',
      '{"final_answer": "3"}',
    ]);
    const r = await new Engine({
      agent: new ReActAgent({ model, tools: [add, fails], parser: jsonParser() }),
      trace: false,
    }).run('sum');
    expect(r.state.metrics).toEqual({ toolCalls: 3, toolErrors: 2, actSteps: 1 });
  });

  it('works with native function calling: schemas go as tools, call ids match results', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'call_1', name: 'add', args: { a: 1, b: 1 } }] },
      { reasoning: 'got it', text: '2' },
    ]);
    const r = await new Engine({
      agent: new ReActAgent({ model, tools: [add], parser: nativeParser({ textMeans: 'final' }) }),
      trace: false,
    }).run('1+1');
    expect(r.finalResult).toBe('2');
    expect(model.requests[0].tools?.map((t) => t.name)).toEqual(['add']);
    const second = model.requests[1].messages;
    expect(second.at(-1)).toEqual({
      role: 'tool',
      content: [{ type: 'tool-result', callId: 'call_1', name: 'add', output: '2', isError: false }],
    });
  });

  it('fills prompt variables in its system prompt each step, from task and state', async () => {
    const variables = createVariableEngine({
      timeZone: 'UTC',
      now: () => new Date(Date.UTC(2024, 5, 1)),
      providers: [valuesProvider({ team: 'qitos {{date}}' })],
    });
    const model = new ScriptedModel(['Action: add(a=1, b=1)', 'Final Answer: 2']);
    const agent = new ReActAgent({
      model,
      tools: [add],
      variables,
      systemPrompt:
        'Today is {{date}}. Task {{task.id}} for {{task.inputs.who}}, step {{state.step}}, {{team}}, \\{{literal}}.',
    });
    await new Engine({ agent, trace: false }).run({ id: 'T7', objective: 'go', inputs: { who: 'Ada' } });
    const prompts = model.requests.map((q) => textOf(q.messages[0]));
    expect(prompts[0]).toContain('Today is 2024-06-01. Task T7 for Ada, step 1, qitos {{date}}, {{literal}}.');
    expect(prompts[1]).toContain('step 2,');
    expect(textOf(model.requests[0].messages[1])).toBe('go\n\nInputs:\n{\n  "who": "Ada"\n}');
  });

  it('stops at its own step limit', async () => {
    const model = new ScriptedModel(['Action: add(a=1, b=1)'], { loop: true });
    const r = await new Engine({ agent: new ReActAgent({ model, tools: [add], maxSteps: 3 }), trace: false }).run(
      'loop',
    );
    expect(r.stopReason).toBe('budget_steps');
    expect(r.state.metrics.toolCalls).toBe(3);
  });

  it('rejects a step limit that is not a positive integer, naming it', () => {
    for (const maxSteps of [0, -1, 2.5, Number.NaN])
      expect(() => new ReActAgent({ maxSteps })).toThrow(/ReActAgent: maxSteps must be a positive integer/);
  });
});
