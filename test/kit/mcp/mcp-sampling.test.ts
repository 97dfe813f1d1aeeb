import { describe, expect, it } from 'vitest';
import { samplingRequest, samplingResult } from '../../../src/kit/mcp/index.js';

describe('sampling/createMessage <-> model request', () => {
  it('maps system prompt, turns, images, temperature and stop sequences, and caps maxTokens', () => {
    const req = samplingRequest(
      {
        systemPrompt: 'Be brief.',
        messages: [
          { role: 'user', content: { type: 'text', text: 'What is this?' } },
          { role: 'user', content: [{ type: 'image', data: 'iVBO', mimeType: 'image/png' }] },
          { role: 'assistant', content: { type: 'text', text: 'A pixel.' } },
          { role: 'user', content: { type: 'text', text: 'Sure?' } },
        ],
        maxTokens: 10_000,
        temperature: 0.2,
        stopSequences: ['\n\n'],
      },
      500,
    );
    expect(req).toEqual({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'What is this?' }] },
        { role: 'user', content: [{ type: 'file', mime: 'image/png', url: 'data:image/png;base64,iVBO' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'A pixel.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Sure?' }] },
      ],
      maxOutputTokens: 500,
      temperature: 0.2,
      stop: ['\n\n'],
    });
    expect(samplingRequest({ messages: [], maxTokens: 7 }, 500).maxOutputTokens).toBe(7);
  });

  it('refuses tool use and non-text assistant turns, naming the message', () => {
    expect(() =>
      samplingRequest({ messages: [], maxTokens: 5, tools: [{ name: 't', inputSchema: { type: 'object' } }] }, 9),
    ).toThrow(/sampling with tools is not supported/);
    expect(() =>
      samplingRequest(
        {
          messages: [{ role: 'assistant', content: { type: 'image', data: 'x', mimeType: 'image/png' } }],
          maxTokens: 5,
        },
        9,
      ),
    ).toThrow('messages[0].content[0]: an assistant turn may only hold text, not image');
  });

  it('turns the model reply into the result: text, model id, stop reason', () => {
    const usage = { input: 1, output: 2, reasoning: 0, cache: { read: 0, write: 0 } };
    expect(
      samplingResult(
        {
          parts: [
            { type: 'reasoning', text: 'hm' },
            { type: 'text', text: 'Blue' },
          ],
          usage,
          cost: 0,
          finishReason: 'stop',
        },
        'scripted:x',
      ),
    ).toEqual({
      role: 'assistant',
      content: { type: 'text', text: 'Blue' },
      model: 'scripted:x',
      stopReason: 'endTurn',
    });
    expect(samplingResult({ parts: [], usage, cost: 0, finishReason: 'length', modelId: 'gpt' }, 'x')).toMatchObject({
      model: 'gpt',
      stopReason: 'maxTokens',
    });
  });
});
