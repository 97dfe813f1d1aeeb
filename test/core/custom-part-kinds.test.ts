import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Message,
  checkCustomParts,
  customPart,
  definePartKind,
  newId,
  toModelMessages,
  type CustomPartKinds,
} from '../../src/core/index.js';

const kinds: CustomPartKinds = {
  citation: definePartKind({
    schema: z.object({ source: z.string().min(1), page: z.number().int().nonnegative(), quote: z.string() }),
    render: (d) => `[${d.source}, p. ${d.page}] ${d.quote}`,
  }),
  hidden: definePartKind({ schema: z.object({ v: z.unknown() }), render: () => null }),
};

const citation = fc.record({
  source: fc.string({ minLength: 1, maxLength: 20 }),
  page: fc.nat({ max: 10_000 }),
  quote: fc.string({ maxLength: 40 }),
});
const userWith = (parts: Message['parts']): Message => ({
  role: 'user',
  info: { id: newId('msg'), role: 'user', time: { created: 0 } },
  parts,
});

describe('custom part kinds', () => {
  it('property: a part of a registered kind round-trips through JSON (as traces hold it) and renders the same', () => {
    fc.assert(
      fc.property(citation, fc.jsonValue({ maxDepth: 2 }), (c, v) => {
        const m = userWith([customPart(kinds, 'citation', c), customPart(kinds, 'hidden', { v })]);
        const back = Message.parse(JSON.parse(JSON.stringify(m)));
        checkCustomParts([back], kinds);
        expect(back.parts[0]).toEqual(m.parts[0]);
        expect(toModelMessages([back], undefined, kinds)).toEqual(toModelMessages([m], undefined, kinds));
        expect(toModelMessages([back], undefined, kinds)).toEqual([
          { role: 'user', content: [{ type: 'text', text: `[${c.source}, p. ${c.page}] ${c.quote}` }] },
        ]);
      }),
    );
  });

  it('data its schema refuses is refused, naming the kind and the field; so is an unknown kind', () => {
    expect(() => customPart(kinds, 'citation', { source: 'a', page: -1, quote: '' })).toThrow(
      /custom part "citation" \(prt_[^)]+\): page: /,
    );
    const edited = userWith([
      { id: 'p1', type: 'custom', kind: 'citation', data: { source: 'a', page: 'x', quote: '' } },
    ]);
    expect(() => checkCustomParts([edited], kinds)).toThrow('custom part "citation" (p1): page:');
    expect(() =>
      toModelMessages([userWith([{ id: 'p2', type: 'custom', kind: 'chart', data: {} }])], undefined, kinds),
    ).toThrow('custom part kind "chart" is not registered (EngineOptions.partKinds); registered: citation, hidden');
    expect(() => Message.parse(userWith([{ id: 'p3', type: 'custom', kind: 'no spaces', data: 1 }]))).toThrow(
      'a custom part kind is 1-64 characters',
    );
  });

  it('an assistant message takes only text from a kind; a file there is an error naming the kind', () => {
    const img: CustomPartKinds = {
      img: definePartKind({
        schema: z.object({}),
        render: () => ({ type: 'file', mime: 'image/png', url: 'data:image/png;base64,AA==' }),
      }),
    };
    const assistant: Message = {
      role: 'assistant',
      info: {
        id: 'm',
        role: 'assistant',
        time: { created: 0 },
        tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
        cost: null,
      },
      parts: [{ id: 'p', type: 'custom', kind: 'img', data: {} }],
    };
    expect(() => toModelMessages([assistant], undefined, img)).toThrow(
      'custom part "img" (p) renders a file in an assistant message; providers take files from user messages only',
    );
  });
});
