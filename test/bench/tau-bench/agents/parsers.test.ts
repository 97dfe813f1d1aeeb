import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ParseError } from '../../../../src/core/index.js';
import { PyFloat, tauReactParser, tauToolCallingParser, type PyDict } from '../../../../src/bench/tau-bench/index.js';

const ctx = { tools: [] };
const textReply = (text: string) => ({ parts: [{ type: 'text' as const, text }] });

describe('tau ReAct parser (the original generate_next_step)', () => {
  it('reads the JSON after the last Action:, keeps the arguments as Python values, and maps respond to a message', () => {
    const raw = new Map<string, PyDict>();
    const p = tauReactParser(raw);
    const d = p.parse(
      textReply(
        'Thought: x\nAction: ignored\nAction:\n{"name": "send_certificate", "arguments": {"user_id": "u", "amount": 100.0}}',
      ),
      ctx,
    );
    expect(d).toMatchObject({
      mode: 'act',
      actions: [{ name: 'send_certificate', args: { user_id: 'u', amount: 100 } }],
    });
    const id = (d as { actions: Array<{ id: string }> }).actions[0].id;
    expect(raw.get(id)?.get('amount')).toBeInstanceOf(PyFloat);
    expect(p.parse(textReply('Action:\n{"name": "respond", "arguments": {"content": "Hello!"}}'), ctx)).toEqual({
      mode: 'wait',
      rationale: 'Hello!',
    });
  });

  it("text that is not JSON is a message to the user, trimmed as Python strip() (the original's hack)", () => {
    const p = tauReactParser(new Map());
    expect(p.parse(textReply('Thought: hm\nAction:\n  Could you give me your order id? '), ctx)).toEqual({
      mode: 'wait',
      rationale: 'Could you give me your order id?',
    });
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes('Action:')),
        (s) => {
          const d = p.parse(textReply(s), ctx);
          if (/^-?(NaN|Infinity)$/.test(s.trim())) return true; // Python's json.loads reads these; JSON.parse does not
          let json = true;
          try {
            JSON.parse(s.trim());
          } catch {
            json = false;
          }
          return json || (d instanceof ParseError === false && d.mode === 'wait' && d.rationale === s.trim());
        },
      ),
    );
  });

  it('JSON that is not {"name", "arguments"} is a parse error saying the expected shape', () => {
    const p = tauReactParser(new Map());
    for (const bad of [
      'Action: 5',
      'Action: {"name": "x"}',
      'Action: {"name": 3, "arguments": {}}',
      'Action: {"name": "x", "arguments": [1]}',
      'Action: {"name": "respond", "arguments": {}}',
    ]) {
      expect(p.parse(textReply(bad), ctx), bad).toBeInstanceOf(ParseError);
    }
    expect(p.formatResults!([{ type: 'tool-result', callId: 'c', name: 't', output: 'ok', isError: false }])).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'API output: ok' }] },
    ]);
  });
});

describe('tau tool-calling parser (the original message_to_action)', () => {
  it('acts on the first tool call only; a text reply is the message, unchanged', () => {
    const p = tauToolCallingParser();
    const d = p.parse(
      {
        parts: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool-call', callId: 'a', name: 'one', input: '{}', args: {} },
          { type: 'tool-call', callId: 'b', name: 'two', input: '{}', args: {} },
        ],
      },
      ctx,
    );
    expect(d).toEqual({ mode: 'act', actions: [{ id: 'a', name: 'one', args: {} }], rationale: 'Let me look.' });
    expect(p.parse(textReply('  Hello,\nhow can I help? '), ctx)).toEqual({
      mode: 'wait',
      rationale: '  Hello,\nhow can I help? ',
    });
    expect(p.parse({ parts: [{ type: 'tool-call', callId: 'a', name: 'one', input: '{bad' }] }, ctx)).toBeInstanceOf(
      ParseError,
    );
    expect(p.parse({ parts: [] }, ctx)).toBeInstanceOf(ParseError);
  });
});
