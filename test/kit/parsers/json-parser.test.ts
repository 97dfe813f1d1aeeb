import { describe, expect, it } from 'vitest';
import { ParseError } from '../../../src/core/index.js';
import { jsonParser } from '../../../src/kit/parsers/index.js';

const parse = (text: string) => jsonParser().parse({ parts: [{ type: 'text', text }] }, { tools: [] });
const error = (text: string) => {
  const d = parse(text);
  expect(d).toBeInstanceOf(ParseError);
  return (d as ParseError).message;
};

describe('jsonParser', () => {
  it('reads a decision inside code fences and surrounding text', () => {
    expect(
      parse(
        'Here you go:\n```json\n{"thought": "sum", "action": {"name": "add", "args": {"a": 1}}}\n```\nDone {not json}',
      ),
    ).toMatchObject({
      mode: 'act',
      rationale: 'sum',
      actions: [{ name: 'add', args: { a: 1 } }],
    });
  });

  it('reads several actions, a final answer and a wait', () => {
    expect(parse('{"actions": [{"name": "a", "args": {}}, {"name": "b", "arguments": {"x": 1}}]}')).toMatchObject({
      mode: 'act',
      actions: [{ name: 'a' }, { name: 'b', args: { x: 1 } }],
    });
    expect(parse('{"final_answer": 42}')).toEqual({ mode: 'final', answer: '42' });
    expect(parse('{"thought": "later", "wait": true}')).toEqual({ mode: 'wait', rationale: 'later' });
  });

  it("reads the Python spelling models also write ('str', True, None)", () => {
    expect(
      parse("{'thought': 'it\\'s {easy}', 'action': {'name': 'add', 'args': {'flag': True, 'x': None}}}"),
    ).toMatchObject({
      mode: 'act',
      rationale: "it's {easy}",
      actions: [{ name: 'add', args: { flag: true, x: null } }],
    });
  });

  it('accepts the same object repeated, rejects two different ones', () => {
    const o = '{"final_answer": "a"}';
    expect(parse(`${o}\n\`\`\`json\n${o}\n\`\`\``)).toEqual({ mode: 'final', answer: 'a' });
    expect(error('{"final_answer": "a"} or {"final_answer": "b"}')).toMatch(
      /2 different JSON decision objects; send exactly one/,
    );
  });

  it('explains what is wrong', () => {
    expect(error('{"action": {"name": "a"}, "final_answer": "x"}')).toMatch(/both an action and a final_answer/);
    expect(error('{"action": {"args": {}}}')).toMatch(/no "name"/);
    expect(error('{"action": {"name": "a", "args": [1]}}')).toMatch(/"args" of a must be a JSON object/);
    expect(error('{"thought": "only thinking"}')).toMatch(/no "action", "actions" or "final_answer"/);
    expect(error('the answer is 4')).toMatch(/No JSON decision object/);
  });
});
