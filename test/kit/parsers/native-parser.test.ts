import { describe, expect, it } from 'vitest';
import type { ResponsePart } from '../../../src/core/index.js';
import { ParseError } from '../../../src/core/index.js';
import { nativeParser } from '../../../src/kit/parsers/index.js';
import { parseJsonObject } from '../../../src/models/parse-json-object.js';

const call = (callId: string, name: string, input: string): ResponsePart => {
  const args = parseJsonObject(input);
  return { type: 'tool-call', callId, name, input, ...(args ? { args } : {}) };
};

describe('nativeParser', () => {
  const p = nativeParser({ textMeans: 'final' });

  it('is native and turns tool calls into actions with the call id as action id', () => {
    expect(p.native).toBe(true);
    const d = p.parse(
      { parts: [{ type: 'text', text: 'Adding both.' }, call('c1', 'add', '{"a":1}'), call('c2', 'mul', '{}')] },
      { tools: [] },
    );
    expect(d).toEqual({
      mode: 'act',
      rationale: 'Adding both.',
      actions: [
        { id: 'c1', name: 'add', args: { a: 1 } },
        { id: 'c2', name: 'mul', args: {} },
      ],
    });
  });

  it('names the tool and the JSON problem when arguments did not parse', () => {
    const d = p.parse(
      { parts: [call('c1', 'add', '{}'), call('c2', 'write_file', '{"path": "a.txt", "content": "x')] },
      { tools: [] },
    );
    expect(d).toBeInstanceOf(ParseError);
    expect((d as ParseError).message).toMatch(/call to write_file are not a valid JSON.*you sent: \{"path": "a\.txt"/);
    expect((p.parse({ parts: [call('c', 'add', '[1]')] }, { tools: [] }) as ParseError).message).toMatch(
      /add .*JSON array, not an object/,
    );
    expect((p.parse({ parts: [call('c', 'add', '')] }, { tools: [] }) as ParseError).message).toMatch(
      /empty \(send \{\}/,
    );
  });

  it('reads text without tool calls as the final answer (reasoning is the rationale), or as a wait', () => {
    expect(
      p.parse(
        {
          parts: [
            { type: 'reasoning', text: 'easy' },
            { type: 'text', text: ' 42\n' },
          ],
        },
        { tools: [] },
      ),
    ).toEqual({ mode: 'final', answer: '42', rationale: 'easy' });
    expect(p.parse({ parts: [{ type: 'reasoning', text: 'hm' }] }, { tools: [] })).toBeInstanceOf(ParseError);
    const w = nativeParser({ textMeans: 'wait' });
    expect(w.parse({ parts: [{ type: 'text', text: 'still working' }] }, { tools: [] })).toEqual({
      mode: 'wait',
      rationale: 'still working',
    });
    expect(w.parse({ parts: [] }, { tools: [] })).toEqual({ mode: 'wait' });
  });
});
