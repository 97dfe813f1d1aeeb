import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Parser, ResponsePart } from '../../../src/core/index.js';
import { Decision, ParseError } from '../../../src/core/index.js';
import { jsonParser, nativeParser, reactParser, xmlParser } from '../../../src/kit/parsers/index.js';
import { REACT_LABEL_LINE, comparable, decisions, garbage, multiline, trimmed } from './arbitraries.js';

const ctx = { tools: [] as string[] };
const free = fc.string({ unit: 'grapheme', maxLength: 60 });
const reactText = fc.oneof(trimmed, multiline).filter((s) => !REACT_LABEL_LINE.test(s));
const xmlText = fc.oneof(
  trimmed,
  multiline,
  fc.constantFrom('a < b && c > d', '</think> <final_answer>x</final_answer>', '&lt;tag&gt; &amp;', '<![CDATA[x]]>'),
);

const cases: Array<{ name: string; parser: Parser; decisions: fc.Arbitrary<Decision> }> = [
  { name: 'json', parser: jsonParser(), decisions: decisions(free, free) },
  {
    name: 'react',
    parser: reactParser({ multipleActions: true }),
    decisions: decisions(
      reactText,
      fc.oneof(trimmed, multiline, fc.constant(''), fc.constant('line\nAction: add(a=1)\nFinal Answer: 2')),
    ),
  },
  {
    name: 'xml',
    parser: xmlParser({ multipleActions: true }),
    decisions: decisions(xmlText, fc.oneof(xmlText, fc.constant(''))),
  },
  {
    name: 'native (text is final)',
    parser: nativeParser({ textMeans: 'final' }),
    decisions: decisions(fc.oneof(trimmed, multiline), fc.oneof(trimmed, multiline), ['act', 'final']),
  },
  {
    name: 'native (text is wait)',
    parser: nativeParser({ textMeans: 'wait' }),
    decisions: decisions(fc.oneof(trimmed, multiline), trimmed, ['act', 'wait']),
  },
];

describe.each(cases)('$name parser', ({ parser, decisions: arb }) => {
  it('format -> parse gives back the same decision', () => {
    fc.assert(
      fc.property(arb, (d) => {
        const parsed = parser.parse({ parts: parser.format(d) }, ctx);
        if (parsed instanceof ParseError)
          throw new Error(`ParseError for ${JSON.stringify(parser.format(d))}: ${parsed.message}`);
        expect(comparable(parsed)).toEqual(comparable(d));
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on garbage: returns a ParseError or a valid Decision', () => {
    const check = (parts: ResponsePart[]) => {
      const r = parser.parse({ parts }, ctx);
      if (r instanceof ParseError) expect(r.message.length).toBeGreaterThan(10);
      else expect(Decision.safeParse(r).success).toBe(true);
    };
    fc.assert(
      fc.property(garbage, (text) => check([{ type: 'text', text }])),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            garbage.map((text) => ({ type: 'text' as const, text })),
            garbage.map((text) => ({ type: 'reasoning' as const, text })),
            fc.record({
              type: fc.constant('tool-call' as const),
              callId: fc.string({ minLength: 1, maxLength: 6 }),
              name: fc.string({ minLength: 1, maxLength: 6 }),
              input: garbage,
            }),
          ),
          { maxLength: 4 },
        ),
        check,
      ),
      { numRuns: 200 },
    );
  });

  it('survives deep nesting without a stack overflow', () => {
    for (const text of [
      '['.repeat(50_000),
      `Action: t(a=${'['.repeat(50_000)}`,
      `{"action": ${'['.repeat(50_000)}`,
      `<action name="t"><arg name="a" type="json">${'['.repeat(50_000)}</arg></action>`,
    ]) {
      const r = parser.parse({ parts: [{ type: 'text', text }] }, ctx);
      expect(r instanceof ParseError || Decision.safeParse(r).success).toBe(true);
    }
  });
});
