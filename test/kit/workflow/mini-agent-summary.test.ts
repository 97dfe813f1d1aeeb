import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineTool,
  type CallModel,
  type HookEvent,
  type ModelMessage,
  type ModelRequest,
} from '../../../src/core/index.js';
import { ScriptedModel } from '../../../src/kit/testing/index.js';
import {
  DEFAULT_TOKEN_LIMIT,
  LLMNodeConfig,
  ROUND_SUMMARY_HEADER,
  WorkflowDefinition,
  estimateTokens,
  runWorkflow,
  summariseProcessor,
} from '../../../src/kit/workflow/index.js';

const user = (text: string): ModelMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const said = (text: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });
const call = (callId: string, name: string): ModelMessage => ({
  role: 'assistant',
  content: [{ type: 'tool-call', callId, name, args: { q: callId } }],
});
const result = (callId: string, name: string, output: string): ModelMessage => ({
  role: 'tool',
  content: [{ type: 'tool-result', callId, name, output, isError: false }],
});
const textOf = (m: ModelMessage) =>
  typeof m.content === 'string' ? m.content : m.content.map((p) => ('text' in p ? p.text : '')).join('');

/** A conversation of three user messages; rounds 1 and 2 did work, the third message has no round yet. */
const conversation: ModelMessage[] = [
  { role: 'system', content: 'You are a researcher.' },
  user('Find the capital of Norway.'),
  call('c1', 'search'),
  result('c1', 'search', 'Oslo is the capital of Norway'),
  said('Oslo.'),
  user('And its population?'),
  call('c2', 'search'),
  result('c2', 'search', 'about 700,000 people live in Oslo'),
  said('About 700,000.'),
  user('Thanks, now Sweden.'),
];

/** A callModel that answers through a ScriptedModel, as the run's middleware would. */
function callModelOf(model: ScriptedModel): CallModel {
  return (request, options) => model.generate(request, { signal: options?.signal ?? new AbortController().signal });
}
const ctxOf = (callModel: CallModel, extra: Record<string, unknown> = {}) => ({
  nodeId: 'sum',
  config: {},
  vars: {},
  callModel,
  signal: new AbortController().signal,
  ...extra,
});

describe('the Mini-Agent summary (seed 001 section 5.2)', () => {
  it('keeps the system message and every user message, and summarises each round on its own', async () => {
    const model = new ScriptedModel(['found Oslo with search', 'found the population with search']);
    const out = await summariseProcessor(conversation, ctxOf(callModelOf(model)));
    expect(out).toEqual([
      conversation[0],
      conversation[1],
      user(`${ROUND_SUMMARY_HEADER}\n\nfound Oslo with search`),
      conversation[5],
      user(`${ROUND_SUMMARY_HEADER}\n\nfound the population with search`),
      conversation[9],
    ]);
    // one call per round, each seeing only its own round, never a user message
    expect(model.requests).toHaveLength(2);
    const prompt = (r: ModelRequest) => textOf(r.messages[1]);
    expect(prompt(model.requests[0])).toContain('Oslo is the capital of Norway');
    expect(prompt(model.requests[0])).not.toContain('700,000');
    expect(prompt(model.requests[1])).toContain('about 700,000 people live in Oslo');
    expect(prompt(model.requests[1])).not.toContain('capital');
    for (const r of model.requests) {
      expect(r.messages[0]).toEqual({ role: 'system', content: 'You are skilled at summarizing execution processes.' });
      expect(prompt(r)).not.toContain('Find the capital');
      expect(r.tools).toBeUndefined();
    }
  });

  it("a failed summary call keeps that round's own text, and says why", async () => {
    const model = new ScriptedModel(['round one, summarised', { error: new Error('summary service down') }]);
    const fallbacks: Array<{ round: number; error: string }> = [];
    const out = await summariseProcessor(
      conversation,
      ctxOf(callModelOf(model), { onFallback: (f: { round: number; error: string }) => fallbacks.push(f) }),
    );
    expect(textOf(out[2])).toBe(`${ROUND_SUMMARY_HEADER}\n\nround one, summarised`);
    const raw = textOf(out[4]);
    expect(raw.startsWith(`${ROUND_SUMMARY_HEADER}\n\n`)).toBe(true);
    expect(raw).toContain('[calls search {"q":"c2"}]');
    expect(raw).toContain('Tool search returned: about 700,000 people live in Oslo');
    expect(raw).toContain('Assistant: About 700,000.');
    expect(fallbacks).toEqual([{ round: 2, error: expect.stringContaining('summary service down') }]);
  });

  it('a cancelled run is not papered over with the raw text', async () => {
    const ac = new AbortController();
    const failing: CallModel = async () => {
      ac.abort();
      throw new Error('aborted');
    };
    await expect(summariseProcessor(conversation, { ...ctxOf(failing), signal: ac.signal })).rejects.toThrow('aborted');
  });

  it('messages before the first user message are a round too, and keepLast keeps the tail as it is', async () => {
    const model = new ScriptedModel(['S0', 'S1']);
    const msgs: ModelMessage[] = [said('warming up'), user('go'), call('c', 'search'), result('c', 'search', 'r')];
    const out = await summariseProcessor(msgs, ctxOf(callModelOf(model), { config: { keepLast: 1 } }));
    // the last message is a tool result: the kept tail starts after it, so nothing is split from its call
    expect(out.map(textOf)).toEqual([`${ROUND_SUMMARY_HEADER}\n\nS0`, 'go', `${ROUND_SUMMARY_HEADER}\n\nS1`]);
    const kept = await summariseProcessor(
      msgs,
      ctxOf(callModelOf(new ScriptedModel(['S0'])), { config: { keepLast: 2 } }),
    );
    expect(kept.slice(2)).toEqual(msgs.slice(2));
  });

  it('estimates tokens as the seed does: characters / 2.5, rounded down', () => {
    expect(estimateTokens([{ role: 'system', content: 'x'.repeat(26) }])).toBe(10);
    const m = user('hello');
    expect(estimateTokens([m, m])).toBe(Math.floor((2 * JSON.stringify(m.content).length) / 2.5));
  });
});

describe('an LLM node summarises at the default tokenLimit', () => {
  const big = defineTool({
    id: 'big',
    description: 'A long output.',
    parameters: z.object({}),
    execute: () => 'x'.repeat(210_000), // 84,000 estimated tokens: over the default
  });
  const flow = WorkflowDefinition.create({
    nodes: [
      { kind: 'start', id: 's' },
      { kind: 'llm', id: 'one', userPrompt: 'first', toolMode: 'auto', availableTools: ['big'] },
      { kind: 'llm', id: 'two', userPrompt: 'second' },
      { kind: 'end', id: 'e', result: '{{two}}' },
    ],
    edges: [
      { from: 's', to: 'one' },
      { from: 'one', to: 'two' },
      { from: 'two', to: 'e' },
    ],
  });

  it('defaults to 80,000 tokens', () => {
    expect(DEFAULT_TOKEN_LIMIT).toBe(80_000);
    expect(LLMNodeConfig.create({ id: 'n', userPrompt: 'p' }).tokenLimit).toBe(80_000);
  });

  it('over it, the thread is summarised before the turn; a failed summary keeps the round and is an event', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'big', args: {} }] },
      'done one',
      { error: new Error('the summariser is down') },
      'done two',
    ]);
    const seen: HookEvent[] = [];
    const r = await runWorkflow(flow, {
      model,
      tools: [big],
      trace: false,
      hooks: [(e) => void (e.type === 'agent' && seen.push(e))],
    });
    expect(r.status).toBe('completed');
    expect(r.output).toBe('done two');
    // the round's raw text stands in: nothing is lost, and the run goes on
    const asked = model.requests[3].messages;
    expect(asked.map((m) => m.role)).toEqual(['user', 'user', 'user']);
    expect(textOf(asked[1])).toContain('x'.repeat(1000));
    expect(textOf(asked[2])).toBe('second');
    const fallback = (seen as Array<Extract<HookEvent, { type: 'agent' }>>).find((e) => e.event === 'summary_fallback');
    expect(fallback?.data).toMatchObject({ node: 'two', round: 1, error: expect.stringContaining('summariser') });
  });
});
