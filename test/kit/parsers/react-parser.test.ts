import { describe, expect, it } from 'vitest';
import type { Decision } from '../../../src/core/index.js';
import { ParseError } from '../../../src/core/index.js';
import { reactParser } from '../../../src/kit/parsers/index.js';

const ctx = { tools: ['write_file', 'search', 'add', 'list'] };
const parse = (text: string, opts = {}) => reactParser(opts).parse({ parts: [{ type: 'text', text }] }, ctx);
function act(text: string, opts = {}) {
  const d = parse(text, opts);
  if (d instanceof ParseError) throw new Error(`unexpected ParseError: ${d.message}`);
  expect(d.mode).toBe('act');
  return d as Extract<Decision, { mode: 'act' }>;
}
function error(text: string, opts = {}): string {
  const d = parse(text, opts);
  expect(d).toBeInstanceOf(ParseError);
  return (d as ParseError).message;
}

describe('reactParser', () => {
  it('keeps label-like lines (else:, Note:, even Final Answer:) inside a multi-line argument', () => {
    const code =
      'def f(x):\n    if x:\n        return 1\n    else:\n        return 2\nNote: keep this\nFinal Answer: not an answer';
    const d = act(`Thought: write the file\nAction: write_file(path="f.py", content="""${code}""")`);
    expect(d.rationale).toBe('write the file');
    expect(d.actions).toHaveLength(1);
    expect(d.actions[0]).toMatchObject({ name: 'write_file', args: { path: 'f.py', content: code } });
  });

  it('reads multi-line strings in plain quotes and arguments spread over several lines', () => {
    const d = act('Action: write_file(\n  path=\'a.txt\',\n  content="line 1\nelse:\nline 3",\n)');
    expect(d.actions[0].args).toEqual({ path: 'a.txt', content: 'line 1\nelse:\nline 3' });
  });

  it('reads Python literals and nested brackets', () => {
    const d = act(
      "Action: add(flag=True, none=None, off=False, s='it\\'s', nums=[[1, (2, 3)], {'k': [4, 5.5e1]}], neg=-2, r=r'\\d+')",
    );
    expect(d.actions[0].args).toEqual({
      flag: true,
      none: null,
      off: false,
      s: "it's",
      nums: [[1, [2, 3]], { k: [4, 55] }],
      neg: -2,
      r: '\\d+',
    });
  });

  it('reads JSON arguments, also as Action Input (plain or fenced)', () => {
    expect(act('Action: add(a=1, b={"c": "d"})').actions[0].args).toEqual({ a: 1, b: { c: 'd' } });
    expect(act('Thought: t\nAction: search\nAction Input: {"query": "cats", "limit": 3}').actions[0].args).toEqual({
      query: 'cats',
      limit: 3,
    });
    expect(act('Action: search\nAction Input:\n```json\n{"query": "a\\nb"}\n```').actions[0].args).toEqual({
      query: 'a\nb',
    });
    expect(act('Action: search({"query": "x"})').actions[0].args).toEqual({ query: 'x' });
  });

  it('takes a bare tool name as a call without arguments', () => {
    expect(act('Thought: look\nAction: list').actions[0]).toMatchObject({ name: 'list', args: {} });
    expect(act('Action: list()').actions[0].args).toEqual({});
  });

  it('tolerates markdown bold labels, backticks and a trailing comment', () => {
    expect(act('**Thought:** hm\n**Action:** `add(a=1, b=2)`').actions[0].args).toEqual({ a: 1, b: 2 });
    expect(act('Action: add(a=1)  # adds').actions[0].args).toEqual({ a: 1 });
  });

  it('ignores an Observation the model invented after its action', () => {
    const d = act('Thought: add\nAction: add(a=1, b=2)\nObservation: 3\nThought: done\nFinal Answer: 3');
    expect(d.actions).toHaveLength(1);
    expect(d.rationale).toBe('add');
  });

  it('reads the final answer to the end, across lines', () => {
    expect(parse('Thought: known\nFinal Answer: line 1\nAction: not a call')).toEqual({
      mode: 'final',
      answer: 'line 1\nAction: not a call',
      rationale: 'known',
    });
    expect(parse('I can answer directly.\nFinal Answer: 42')).toEqual({
      mode: 'final',
      answer: '42',
      rationale: 'I can answer directly.',
    });
  });

  it('accepts several actions only when the agent allows it', () => {
    const text = 'Thought: both\nAction: add(a=1, b=2)\nAction: search(query="x")';
    expect(error(text)).toMatch(/2 actions; send exactly one Action/);
    expect(act(text, { multipleActions: true }).actions.map((a) => a.name)).toEqual(['add', 'search']);
  });

  it('rejects an action together with a final answer', () => {
    expect(error('Action: add(a=1)\nFinal Answer: 1')).toMatch(/both an Action and a Final Answer/);
  });

  it('tells the model how to fix bad arguments', () => {
    expect(error('Action: search(query=cats)')).toMatch(/unquoted text "cats": put strings in quotes/);
    expect(error('Action: search("cats")')).toMatch(/name=value pairs/);
    expect(error('Action: search(query="cats"')).toMatch(/not closed/);
    expect(error('Action: search(query="cats", query="dogs")')).toMatch(/given twice/);
    expect(error('Action: search the web for cats')).toMatch(/arguments in parentheses/);
    expect(error('Action: search\nAction Input: cats')).toMatch(/Action Input of search/);
    expect(error('Action Input: {"a": 1}')).toMatch(/must follow an "Action/);
  });

  it('names what is missing, with the expected format, when there is no action or answer', () => {
    const m = error('I think the answer is 4.');
    expect(m).toMatch(/no "Action:" and no "Final Answer:"/);
    expect(m).toContain('Final Answer: <the answer>');
    expect(error('   ')).toMatch(/empty/);
  });

  it('keeps __proto__ as a plain argument name', () => {
    const d = act('Action: search\nAction Input: {"__proto__": {"x": 1}}');
    expect(Object.getPrototypeOf(d.actions[0].args)).toBe(Object.prototype);
    expect(Object.keys(d.actions[0].args)).toEqual(['__proto__']);
  });

  it('lists the tools with their JSON Schemas in its instructions', () => {
    const text = reactParser().instructions([
      { name: 'add', description: 'Adds.', inputSchema: { type: 'object', properties: { a: { type: 'number' } } } },
    ]);
    expect(text).toContain('- add: Adds.');
    expect(text).toContain('{"type":"object","properties":{"a":{"type":"number"}}}');
    expect(text).toContain('One Action per reply'.replace('One', 'one'));
  });
});
