import { describe, expect, it } from 'vitest';
import { ParseError, type ResponsePart } from '../../../src/core/index.js';
import { jsonParser, nativeParser, reactParser, xmlParser } from '../../../src/kit/parsers/index.js';
import { parseJsonObject } from '../../../src/models/parse-json-object.js';

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
const text = (t: string): { parts: ResponsePart[] } => ({ parts: [{ type: 'text', text: t }] });
const ctx = { tools: ['add'] };

describe('parsers: arguments nested past the limit', () => {
  for (const n of [513, 100_000]) {
    it(`a reply nested ${n} deep is a ParseError naming the limit, not a stack overflow`, () => {
      const input = `{"a": ${deep(n)}}`;
      const replies = [
        [jsonParser(), text(`{"action": {"name": "add", "args": ${input}}}`)],
        [reactParser(), text(`Thought: add\nAction: add(a=${deep(n)})`)],
        [xmlParser(), text(`<action name="add"><arg name="a">${deep(n)}</arg></action>`)],
        [
          nativeParser(),
          {
            parts: [
              {
                type: 'tool-call',
                callId: 'c1',
                name: 'add',
                input,
                ...(parseJsonObject(input) ? { args: parseJsonObject(input) } : {}),
              },
            ],
          },
        ],
      ] as const;
      for (const [parser, reply] of replies) {
        const d = parser.parse(reply as { parts: ResponsePart[] }, ctx);
        expect(d instanceof ParseError, parser.name).toBe(true); // (a deep decision would overflow the diff printer)
        expect((d as ParseError).message.slice(0, 300), parser.name).toMatch(
          /(nest(s|ed)? (deeper|more) than 512 levels)/,
        );
      }
    });
  }

  it('512 levels still parse', () => {
    const d = jsonParser().parse(text(`{"action": {"name": "add", "args": {"a": ${deep(500)}}}}`), ctx);
    expect(d).toMatchObject({ mode: 'act', actions: [{ name: 'add' }] });
  });
});
