import fc from 'fast-check';
import type { Action, Decision } from '../../../src/core/index.js';
import { newActionId } from '../../../src/core/index.js';

/** Lines a ReAct reply would read as a label (the parser's label set, also after \r or U+2028). */
export const REACT_LABEL_LINE =
  /^[ \t]*(\*\*)?(thought|action input|action|final answer|observation|wait)(\*\*)?[ \t]*:/im;

export const toolName = fc.stringMatching(/^[a-zA-Z0-9_-]{1,16}$/);
export const identifier = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,10}$/);

/** Argument objects: identifier keys (ReAct call syntax) or any keys (Action Input / attributes). */
export const args = fc.oneof(
  fc.dictionary(identifier, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
  fc.dictionary(fc.string({ unit: 'grapheme', maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
  fc.dictionary(identifier, fc.string({ unit: 'grapheme', maxLength: 30 }), { maxKeys: 3 }),
);

export function decisions(
  text: fc.Arbitrary<string>,
  answer: fc.Arbitrary<string>,
  modes: Array<Decision['mode']> = ['act', 'final', 'wait'],
): fc.Arbitrary<Decision> {
  const rationale = fc.option(text, { nil: undefined });
  const withR = <T extends object>(d: T, r: string | undefined) => (r === undefined ? d : { ...d, rationale: r });
  const action: fc.Arbitrary<Action> = fc.record({ name: toolName, args }).map((a) => ({ id: newActionId(), ...a }));
  const all: Record<string, fc.Arbitrary<Decision>> = {
    act: fc
      .tuple(fc.array(action, { minLength: 1, maxLength: 3 }), rationale)
      .map(([actions, r]) => withR({ mode: 'act' as const, actions }, r)),
    final: fc.tuple(answer, rationale).map(([a, r]) => withR({ mode: 'final' as const, answer: a }, r)),
    wait: rationale.map((r) => withR({ mode: 'wait' as const }, r)),
  };
  return fc.oneof(...modes.map((m) => all[m]));
}

/** A decision as data: action ids dropped, arguments as JSON sees them (e.g. -0 is 0). */
export function comparable(d: Decision): unknown {
  if (d.mode !== 'act') return d;
  return { ...d, actions: d.actions.map((a) => ({ name: a.name, args: JSON.parse(JSON.stringify(a.args)) })) };
}

/** Trimmed, non-empty text. */
export const trimmed = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 60 })
  .map((s) => s.trim())
  .filter((s) => s.length > 0);
/** Trimmed text with real newlines in it. */
export const multiline = fc.array(trimmed, { minLength: 1, maxLength: 4 }).map((l) => l.join('\n'));

/** Garbage built from the tokens parsers care about, plus random characters. */
export const garbage = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc
    .array(
      fc.oneof(
        fc.constantFrom(
          'Thought:',
          'Action:',
          'Action Input:',
          'Final Answer:',
          'Observation:',
          'Wait:',
          'add(',
          ')',
          '(',
          '"',
          "'",
          '"""',
          "'''",
          '{',
          '}',
          '[',
          ']',
          '=',
          ',',
          ':',
          ' ',
          '\n',
          '\\',
          'True',
          'None',
          'r"',
          'x',
          '1',
          '-',
          '.',
          'e9',
          '```',
          '`',
          '<think>',
          '</think>',
          '<action name="t">',
          '<action',
          '</action>',
          '<arg name="a">',
          '<arg name=',
          '</arg>',
          '<final_answer>',
          '</final_answer>',
          '<wait/>',
          '&lt;',
          '&#x1F600;',
          '&',
          '<![CDATA[',
          ']]>',
          'type="json"',
          '{"action":',
          '"name"',
          '"args"',
          '"final_answer"',
          '"thought"',
          '"wait": true',
          'null',
        ),
        fc.string({ maxLength: 4 }),
      ),
      { maxLength: 40 },
    )
    .map((t) => t.join('')),
);
