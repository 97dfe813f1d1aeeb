import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkFrames, openAIUsage } from '../../src/server/chat-completion.js';

// Frames are assembled from pre-serialized pieces, so any id, model name or delta text (quotes, newlines, lone
// surrogates, "data:" inside) must still give one SSE frame whose data is the OpenAI chunk, parsed back exactly.
const text = fc.string({ unit: 'binary', maxLength: 60 });
const head = fc.record({ id: text, created: fc.nat(), model: text });
const usage = fc.record({
  input: fc.nat(),
  output: fc.nat(),
  reasoning: fc.nat(),
  cache: fc.record({ read: fc.nat(), write: fc.nat() }),
});

/** The data of one SSE frame: it must be exactly one `data:` line (a newline inside would split it). */
function data(frame: string): unknown {
  expect(frame.startsWith('data: ')).toBe(true);
  expect(frame.endsWith('\n\n')).toBe(true);
  expect(frame.slice(0, -2)).not.toContain('\n');
  return JSON.parse(frame.slice('data: '.length, -2));
}

describe('ChunkFrames', () => {
  it('a delta frame is the chat.completion.chunk OpenAI sends, for any head, delta and finish', () => {
    fc.assert(
      fc.property(
        head,
        fc.dictionary(fc.constantFrom('role', 'content', 'reasoning_content'), text),
        fc.constantFrom('stop' as const, 'length' as const, null),
        fc.boolean(),
        (h, delta, finish, withUsage) => {
          expect(data(new ChunkFrames(h, withUsage).delta(delta, finish))).toStrictEqual({
            id: h.id,
            object: 'chat.completion.chunk',
            created: h.created,
            model: h.model,
            choices: [{ index: 0, delta: { ...delta }, logprobs: null, finish_reason: finish }],
            ...(withUsage ? { usage: null } : {}),
          });
        },
      ),
    );
  });

  it("the usage frame has no choices and the run usage in OpenAI's shape", () => {
    fc.assert(
      fc.property(head, usage, (h, tokens) => {
        const u = { tokens, cost: null, modelCalls: 1 };
        expect(data(new ChunkFrames(h, true).usage(u))).toStrictEqual({
          id: h.id,
          object: 'chat.completion.chunk',
          created: h.created,
          model: h.model,
          choices: [],
          usage: openAIUsage(u),
        });
      }),
    );
  });
});
