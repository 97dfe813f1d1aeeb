import { describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/models/index.js';
import { type ModelStreamEvent } from '../../src/index.js';

describe('ScriptedModel', () => {
  it('streams text, reasoning and tool calls like a provider and records requests', async () => {
    const m = new ScriptedModel([
      { reasoning: 'r', text: 'hello', toolCalls: [{ name: 'add', args: { a: 1 }, id: 'c' }], usage: { input: 7 } },
    ]);
    const events: ModelStreamEvent['type'][] = [];
    const res = await m.generate(
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] },
      { onEvent: (e) => void events.push(e.type) },
    );
    expect(events).toEqual([
      'step-start',
      'reasoning-start',
      'reasoning-delta',
      'reasoning-end',
      'text-delta',
      'tool-input-start',
      'tool-input-delta',
      'tool-call',
      'step-finish',
    ]);
    expect(res.parts.map((p) => p.type)).toEqual(['reasoning', 'text', 'tool-call']);
    expect(res.parts[2]).toEqual({ type: 'tool-call', callId: 'c', name: 'add', input: '{"a":1}', args: { a: 1 } });
    expect(res.finishReason).toBe('tool-calls');
    expect(res.usage.input).toBe(7);
    expect(m.requests).toHaveLength(1);
  });

  it('keeps malformed tool-call JSON raw, without args', async () => {
    const m = new ScriptedModel([{ toolCalls: [{ name: 'add', input: '{"a":1' }] }]);
    const res = await m.generate({ messages: [] });
    expect(res.parts[0]).toMatchObject({ type: 'tool-call', input: '{"a":1' });
    expect('args' in res.parts[0]).toBe(false);
  });

  it('fails loudly when the script runs out, and loops when asked', async () => {
    const m = new ScriptedModel(['a']);
    await m.generate({ messages: [] });
    await expect(m.generate({ messages: [] })).rejects.toThrow(/script exhausted: it has 1 replies and request #2/);
    const l = new ScriptedModel(['a', 'b'], { loop: true });
    const texts = [];
    for (let i = 0; i < 3; i++) texts.push((await l.generate({ messages: [] })).parts[0]);
    expect(texts.map((p) => (p as { text: string }).text)).toEqual(['a', 'b', 'a']);
  });

  it('replies can be functions of the request', async () => {
    const m = new ScriptedModel([(req) => ({ text: `saw ${req.messages.length}` })]);
    expect((await m.generate({ messages: [{ role: 'system', content: 's' }] })).parts[0]).toEqual({
      type: 'text',
      text: 'saw 1',
    });
  });
});
