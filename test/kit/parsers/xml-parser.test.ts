import { describe, expect, it } from 'vitest';
import type { Decision, ToolSpec } from '../../../src/core/index.js';
import { ParseError } from '../../../src/core/index.js';
import { xmlParser } from '../../../src/kit/parsers/index.js';

const specs: ToolSpec[] = [
  {
    name: 'write',
    description: 'w',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' }, mode: { type: ['string', 'null'] } },
    },
  },
  {
    name: 'add',
    description: 'a',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' }, opts: { type: 'object' } },
    },
  },
];
const parse = (text: string, withSpecs = false, opts = {}) =>
  xmlParser(opts).parse(
    { parts: [{ type: 'text', text }] },
    { tools: ['write', 'add'], ...(withSpecs ? { specs } : {}) },
  );
function act(text: string, withSpecs = false) {
  const d = parse(text, withSpecs);
  if (d instanceof ParseError) throw new Error(`unexpected ParseError: ${d.message}`);
  expect(d.mode).toBe('act');
  return (d as Extract<Decision, { mode: 'act' }>).actions;
}
const error = (text: string, opts = {}) => {
  const d = parse(text, false, opts);
  expect(d).toBeInstanceOf(ParseError);
  return (d as ParseError).message;
};

describe('xmlParser', () => {
  it('accepts a single-root final answer', () => {
    expect(parse('<final_answer>42</final_answer>')).toEqual({ mode: 'final', answer: '42' });
    expect(parse('Sure.\n<final_answer>\n42\n</final_answer>\ntrailing text')).toEqual({ mode: 'final', answer: '42' });
  });

  it('keeps a raw "<" and "&" in text, and decodes entities', () => {
    expect(
      parse('<think>is a < b? yes & so</think><final_answer>a < b && b > c; &lt;ok&gt; &#65;&#x42;</final_answer>'),
    ).toEqual({
      mode: 'final',
      answer: 'a < b && b > c; <ok> AB',
      rationale: 'is a < b? yes & so',
    });
    expect(
      act('<action name="write"><arg name="path">x.ts</arg><arg name="content">if (a < b && c) {}</arg></action>')[0]
        .args,
    ).toEqual({ path: 'x.ts', content: 'if (a < b && c) {}' });
  });

  it('does not read actions mentioned inside <think>', () => {
    expect(parse('<think>I could <action name="add"> but no</think><final_answer>no</final_answer>')).toEqual({
      mode: 'final',
      answer: 'no',
      rationale: 'I could <action name="add"> but no',
    });
  });

  it('types arguments by the tool schema when specs are given', () => {
    const xml =
      '<action name="write"><arg name="path">42</arg><arg name="content">true</arg><arg name="mode">null</arg></action>';
    expect(act(xml, true)[0].args).toEqual({ path: '42', content: 'true', mode: 'null' });
    expect(act(xml)[0].args).toEqual({ path: 42, content: true, mode: null });
    expect(
      act(
        '<action name="add"><arg name="a">1</arg><arg name="b"> 2.5 </arg><arg name="opts">{"x": [1]}</arg></action>',
        true,
      )[0].args,
    ).toEqual({ a: 1, b: 2.5, opts: { x: [1] } });
    // not JSON: stays text, and the tool's own validation names the expected type
    expect(act('<action name="add"><arg name="a">one</arg></action>', true)[0].args).toEqual({ a: 'one' });
  });

  it('honours type="string" and type="json"', () => {
    expect(
      act('<action name="x"><arg name="a" type="string">42</arg><arg name="b" type="json">[1, True]</arg></action>')[0]
        .args,
    ).toEqual({ a: '42', b: [1, true] });
    expect(error('<action name="x"><arg name="b" type="json">[1,</arg></action>')).toMatch(/should be JSON/);
  });

  it('keeps CDATA verbatim and drops the block layout newlines', () => {
    expect(act('<action name="write"><arg name="content"><![CDATA[a </arg> &amp; b]]></arg></action>')[0].args).toEqual(
      { content: 'a </arg> &amp; b' },
    );
    expect(act('<action name="write">\n  <arg name="content">\nline 1\n  line 2\n</arg>\n</action>')[0].args).toEqual({
      content: 'line 1\n  line 2',
    });
  });

  it('accepts a JSON object as the body and a self-closing action', () => {
    expect(act('<action name="add">{"a": 1, "b": 2}</action>')[0].args).toEqual({ a: 1, b: 2 });
    expect(act("<action name='add'/>")[0]).toMatchObject({ name: 'add', args: {} });
  });

  it('parses waits and several actions when allowed', () => {
    expect(parse('<think>later</think><wait/>')).toEqual({ mode: 'wait', rationale: 'later' });
    const two = '<action name="add"><arg name="a">1</arg></action><action name="write"></action>';
    expect(error(two)).toMatch(/2 <action> elements/);
    const d = xmlParser({ multipleActions: true }).parse({ parts: [{ type: 'text', text: two }] }, { tools: [] });
    expect(d).toMatchObject({ mode: 'act', actions: [{ name: 'add' }, { name: 'write' }] });
  });

  it('explains malformed replies', () => {
    expect(error('<action name="add"><arg name="a">1</arg></action><final_answer>1</final_answer>')).toMatch(
      /both an <action> and a <final_answer>/,
    );
    expect(error('<action><arg name="a">1</arg></action>')).toMatch(/no name attribute/);
    expect(error('<action name="add"><arg name="a">1</action>')).toMatch(/is not closed: add <\/arg>/);
    expect(error('<action name="add"><arg name="a">1</arg>')).toMatch(/<action name="add"> is not closed/);
    expect(error('<action name="add"><arg name="a">1</arg><arg name="a">2</arg></action>')).toMatch(/given twice/);
    expect(error('<action name=add>')).toMatch(/quoted value/);
    expect(error('just text, 42')).toMatch(/no <action> and no <final_answer>/);
  });
});
