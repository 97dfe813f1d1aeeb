import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message, Part, ToolPart } from '../../src/core/index.js';
import {
  COMPACTED_PLACEHOLDER,
  INTERRUPTED_TOOL_ERROR,
  Message as MessageSchema,
  ModelMessage,
  emptyTokens,
  toModelMessages,
  type ResultFormatter,
} from '../../src/core/index.js';

const t = { created: 1, start: 2, end: 3 };
const user = (parts: Part[]): Message => ({
  role: 'user',
  info: { id: 'u', role: 'user', time: { created: 0 } },
  parts,
});
const assistant = (parts: Part[]): Message => ({
  role: 'assistant',
  info: { id: 'a', role: 'assistant', time: { created: 0 }, tokens: emptyTokens(), cost: null },
  parts,
});
function toolPart(
  callID: string,
  origin: ToolPart['origin'],
  status: 'pending' | 'running' | 'completed' | 'error' | 'compacted',
): ToolPart {
  const input = { q: callID };
  const state: ToolPart['state'] =
    status === 'pending'
      ? { status, input, time: { created: 1 } }
      : status === 'running'
        ? { status, input, time: { created: 1, start: 2 } }
        : status === 'error'
          ? { status, input, error: 'bad input', time: t }
          : {
              status: 'completed',
              input,
              output: `out ${callID}`,
              time: status === 'compacted' ? { ...t, compacted: 9 } : t,
            };
  return { id: `p_${callID}`, type: 'tool', callID, tool: 'search', origin, state };
}

describe('toModelMessages', () => {
  it('turns native calls into tool-call parts followed by one tool message, in call order', () => {
    const out = toModelMessages([
      user([{ id: '1', type: 'text', text: 'find it' }]),
      assistant([
        { id: 's', type: 'step-start' },
        { id: 'x', type: 'text', text: 'searching' },
        toolPart('c1', 'native', 'completed'),
        toolPart('c2', 'native', 'pending'),
        { id: 'f', type: 'step-finish', reason: 'tool-calls', tokens: emptyTokens(), cost: 0 },
      ]),
    ]);
    expect(out).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'find it' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'searching' },
          { type: 'tool-call', callId: 'c1', name: 'search', args: { q: 'c1' } },
          { type: 'tool-call', callId: 'c2', name: 'search', args: { q: 'c2' } },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', callId: 'c1', name: 'search', output: 'out c1', isError: false },
          { type: 'tool-result', callId: 'c2', name: 'search', output: INTERRUPTED_TOOL_ERROR, isError: true },
        ],
      },
    ]);
  });

  it('renders parsed calls in a plain user message by default: compacted as placeholder, cut runs as errors', () => {
    const out = toModelMessages([
      assistant([
        { id: 'x', type: 'text', text: 'Action: search(q="c1")' },
        toolPart('c1', 'parsed', 'compacted'),
        toolPart('c2', 'parsed', 'running'),
        toolPart('c3', 'parsed', 'error'),
      ]),
    ]);
    expect(out).toEqual([
      { role: 'assistant', content: [{ type: 'text', text: 'Action: search(q="c1")' }] },
      {
        role: 'user',
        content: [
          {
            type: 'text',
            text:
              `Result of search: ${COMPACTED_PLACEHOLDER}\n\nError from ` +
              `search: ${INTERRUPTED_TOOL_ERROR}\n\nError from search: bad input`,
          },
        ],
      },
    ]);
  });

  it("hands the results of parsed calls to the formatter it is given (a parser's own wording), in call order", () => {
    const seen: string[][] = [];
    const tagged: ResultFormatter = (results) => {
      seen.push(results.map((r) => r.callId));
      return [
        {
          role: 'user',
          content: results.map((r) => ({
            type: 'text' as const,
            text: `<result call="${r.callId}" error="${r.isError}">${r.output}</result>`,
          })),
        },
      ];
    };
    const out = toModelMessages(
      [
        assistant([
          { id: 'x', type: 'text', text: 'two calls' },
          toolPart('c1', 'parsed', 'completed'),
          toolPart('c2', 'parsed', 'error'),
          toolPart('n1', 'native', 'completed'),
        ]),
      ],
      tagged,
    );
    expect(seen).toEqual([['c1', 'c2']]);
    expect(out.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: '<result call="c1" error="false">out c1</result>' },
        { type: 'text', text: '<result call="c2" error="true">bad input</result>' },
      ],
    });
    // native calls still go back as a tool message, whatever the formatter
    expect(out[1]).toEqual({
      role: 'tool',
      content: [{ type: 'tool-result', callId: 'n1', name: 'search', output: 'out n1', isError: false }],
    });
  });

  it("carries a tool's files with its result (native) or after the observations (parsed), best effort; compaction drops them", () => {
    const withFiles = (callID: string, origin: ToolPart['origin'], compacted = false): ToolPart => ({
      ...toolPart(callID, origin, compacted ? 'compacted' : 'completed'),
      state: {
        ...(toolPart(callID, origin, compacted ? 'compacted' : 'completed').state as Extract<
          ToolPart['state'],
          { status: 'completed' }
        >),
        attachments: [{ mime: 'image/png', url: 'data:image/png;base64,AA', filename: 'a.png' }],
      },
    });
    const file = {
      type: 'file',
      mime: 'image/png',
      url: 'data:image/png;base64,AA',
      filename: 'a.png',
      bestEffort: true,
    };
    const native = toModelMessages([assistant([withFiles('c1', 'native'), withFiles('c2', 'native', true)])]);
    expect(native[1]).toEqual({
      role: 'tool',
      content: [
        { type: 'tool-result', callId: 'c1', name: 'search', output: 'out c1', isError: false, attachments: [file] },
        { type: 'tool-result', callId: 'c2', name: 'search', output: COMPACTED_PLACEHOLDER, isError: false },
      ],
    });
    const parsed = toModelMessages([assistant([{ id: 'x', type: 'text', text: 'go' }, withFiles('c1', 'parsed')])]);
    expect(parsed[1]).toEqual({ role: 'user', content: [{ type: 'text', text: 'Result of search: out c1' }, file] });
  });

  it('passes reasoning back (signature, redacted) and keeps user files; drops empty messages', () => {
    const out = toModelMessages([
      user([
        { id: 'f', type: 'file', mime: 'image/png', url: 'data:image/png;base64,AA' },
        { id: 'c', type: 'compaction', auto: true },
      ]),
      user([{ id: 'c', type: 'compaction', auto: true }]),
      assistant([
        { id: 'r', type: 'reasoning', text: '', redacted: true, signature: 'enc', time: { start: 1, end: 2 } },
        { id: 'e', type: 'text', text: '' },
      ]),
    ]);
    expect(out).toEqual([
      { role: 'user', content: [{ type: 'file', mime: 'image/png', url: 'data:image/png;base64,AA' }] },
      { role: 'assistant', content: [{ type: 'reasoning', text: '', signature: 'enc', redacted: true }] },
    ]);
  });

  it('always yields valid model messages where every native call is answered right after it (property)', () => {
    const status = fc.constantFrom('pending', 'running', 'completed', 'error', 'compacted') as fc.Arbitrary<
      'pending' | 'running' | 'completed' | 'error' | 'compacted'
    >;
    const part: fc.Arbitrary<Part> = fc.oneof(
      fc.string().map((text) => ({ id: 'x', type: 'text' as const, text })),
      fc.string().map((text) => ({ id: 'r', type: 'reasoning' as const, text, time: { start: 1, end: 2 } })),
      fc
        .tuple(
          fc.string({ minLength: 1, maxLength: 5 }),
          fc.constantFrom('native', 'parsed') as fc.Arbitrary<ToolPart['origin']>,
          status,
        )
        .map(([id, o, s]) => toolPart(id, o, s)),
      fc.constant({ id: 's', type: 'step-start' as const }),
    );
    const message = fc.oneof(
      fc.array(part, { maxLength: 5 }).map(assistant),
      fc
        .array(
          part.filter((p) => p.type === 'text'),
          { maxLength: 2 },
        )
        .map(user),
    );
    fc.assert(
      fc.property(fc.array(message, { maxLength: 6 }), (history) => {
        for (const m of history) expect(MessageSchema.safeParse(m).success).toBe(true);
        const out = toModelMessages(history);
        for (const [i, m] of out.entries()) {
          expect(ModelMessage.safeParse(m).success).toBe(true);
          if (m.role !== 'assistant') continue;
          const calls = m.content.filter((c) => c.type === 'tool-call').map((c) => c.callId);
          if (!calls.length) continue;
          const next = out[i + 1];
          expect(next?.role).toBe('tool');
          expect(next.role === 'tool' && next.content.map((r) => r.callId)).toEqual(calls);
        }
      }),
      { numRuns: 200 },
    );
  });
});
