import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { ModelMessage, ModelRequest, ModelStreamEvent } from '../../src/core/index.js';
import { ModelError } from '../../src/core/index.js';
import { createModel, type RetryInfo } from '../../src/models/index.js';
import { startFakeAnthropic, type AnthropicReply, type FakeServer } from '../../src/kit/testing/fake-llm-servers.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(script: Parameters<typeof startFakeAnthropic>[0]): Promise<FakeServer> {
  const s = await startFakeAnthropic(script);
  servers.push(s);
  return s;
}

const fast = { baseDelayMs: 1, maxDelayMs: 5 };
const model = (srv: FakeServer, extra: Parameters<typeof createModel>[1] = {}) =>
  createModel('anthropic:claude-haiku-4-5', {
    baseURL: srv.url,
    apiKey: 'sk-ant-test',
    env: {},
    retry: fast,
    ...extra,
  });
const ask = (text = 'hi'): ModelRequest => ({
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: [{ type: 'text', text }] },
  ],
});

describe('AnthropicModel: streaming', () => {
  it('streams thinking (with signature), text and a tool use with streamed JSON input', async () => {
    const input = JSON.stringify({ path: 'notes/today.md', lines: [1, 2, 3] });
    const srv = await serve([
      {
        thinking: { text: 'The user wants the file.', signature: 'EqQBCgIYAhIM' },
        text: 'Reading it.',
        toolUses: [{ id: 'toolu_01', name: 'read', input }],
      },
    ]);
    const events: ModelStreamEvent[] = [];
    const r = await model(srv).generate(
      {
        ...ask(),
        tools: [
          {
            name: 'read',
            description: 'read a file',
            inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
          },
        ],
        toolChoice: { name: 'read' },
      },
      { onEvent: (e) => events.push(e) },
    );

    expect(r.parts).toMatchObject([
      { type: 'reasoning', text: 'The user wants the file.', signature: 'EqQBCgIYAhIM' },
      { type: 'text', text: 'Reading it.' },
      { type: 'tool-call', callId: 'toolu_01', name: 'read', input, args: JSON.parse(input) },
    ]);
    expect(r.finishReason).toBe('tool-calls');
    expect(events.find((e) => e.type === 'reasoning-end')).toMatchObject({ signature: 'EqQBCgIYAhIM' });
    expect(events.filter((e) => e.type === 'tool-input-delta').length).toBeGreaterThan(5);
    expect(events.filter((e) => e.type === 'step-start')).toHaveLength(1);

    const req = srv.requests[0];
    // The SDK sends the key as x-api-key or (newer versions) as a bearer token.
    expect(req.headers['x-api-key'] ?? req.headers.authorization).toMatch(/sk-ant-test$/);
    expect(req.body).toMatchObject({
      model: 'claude-haiku-4-5',
      stream: true,
      max_tokens: 64_000,
      system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
      tools: [
        {
          name: 'read',
          description: 'read a file',
          input_schema: { type: 'object', properties: { path: { type: 'string' } } },
        },
      ],
      tool_choice: { type: 'tool', name: 'read' },
    });
  });

  it('counts cache reads and writes apart from input, and prices them', async () => {
    const srv = await serve([
      {
        text: 'ok',
        usage: {
          input_tokens: 50,
          output_tokens: 100,
          cache_read_input_tokens: 4000,
          cache_creation_input_tokens: 1000,
          thinking_tokens: 40,
        },
      },
    ]);
    const r = await model(srv).generate(ask());
    expect(r.usage).toEqual({ input: 50, output: 100, reasoning: 40, cache: { read: 4000, write: 1000 } });
    // claude-haiku-4-5: $1 in, $5 out, $0.10 cache read, $1.25 cache write per 1M
    expect(r.cost).toBeCloseTo((50 * 1 + 100 * 5 + 4000 * 0.1 + 1000 * 1.25) / 1e6, 12);
  });

  it('keeps malformed tool input raw, with no args', async () => {
    const srv = await serve([{ toolUses: [{ id: 't1', name: 'read', input: '{"path": ' }] }]);
    const r = await model(srv).generate(ask());
    expect(r.parts).toEqual([{ type: 'tool-call', callId: 't1', name: 'read', input: '{"path": ' }]);
  });

  it('maps stop reasons', async () => {
    const srv = await serve([
      { text: 'a', stopReason: 'max_tokens' },
      { text: 'b', stopReason: 'refusal' },
      { text: 'c', stopReason: 'stop_sequence' },
    ]);
    const m = model(srv);
    expect((await m.generate(ask())).finishReason).toBe('length');
    expect((await m.generate(ask())).finishReason).toBe('content-filter');
    expect((await m.generate(ask())).finishReason).toBe('stop');
  });
});

describe('AnthropicModel: conversation shape', () => {
  it('passes thinking and redacted thinking back unchanged, and tool results as user tool_result blocks', async () => {
    const srv = await serve([
      {
        thinking: { text: 'plan', signature: 'sig-1' },
        redactedThinking: 'ENCRYPTED==',
        toolUses: [{ id: 'toolu_9', name: 'ls', input: '{"dir":"."}' }],
      },
      { text: 'Two files.' },
    ]);
    const m = model(srv);
    const first = await m.generate(ask('list files'));
    expect(first.parts.filter((p) => p.type === 'reasoning')).toMatchObject([
      { text: 'plan', signature: 'sig-1' },
      { text: '', signature: 'ENCRYPTED==', redacted: true },
    ]);

    // The next turn as the engine builds it from history.
    const assistant: ModelMessage = {
      role: 'assistant',
      content: first.parts.map((p) =>
        p.type === 'reasoning'
          ? {
              type: 'reasoning',
              text: p.text,
              ...(p.signature ? { signature: p.signature } : {}),
              ...(p.redacted ? { redacted: true } : {}),
            }
          : p.type === 'text'
            ? p
            : { type: 'tool-call', callId: p.callId, name: p.name, args: p.args ?? {} },
      ),
    };
    const history: ModelMessage[] = [
      ...ask('list files').messages,
      assistant,
      {
        role: 'tool',
        content: [{ type: 'tool-result', callId: 'toolu_9', name: 'ls', output: 'a.txt\nb.txt', isError: false }],
      },
      { role: 'user', content: [{ type: 'text', text: 'and now?' }] },
    ];
    await m.generate({ messages: history });
    const body = srv.requests[1].body;
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'list files' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'plan', signature: 'sig-1' },
          { type: 'redacted_thinking', data: 'ENCRYPTED==' },
          { type: 'tool_use', id: 'toolu_9', name: 'ls', input: { dir: '.' }, cache_control: { type: 'ephemeral' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_9', content: 'a.txt\nb.txt' },
          { type: 'text', text: 'and now?', cache_control: { type: 'ephemeral' } },
        ],
      },
    ]);
  });

  it('puts the files of a tool result inside its tool_result block; types it cannot carry become a note', async () => {
    const srv = await serve([{ text: 'ok' }]);
    await model(srv, { cache: false }).generate({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        { role: 'assistant', content: [{ type: 'tool-call', callId: 'c1', name: 'shot', args: {} }] },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              callId: 'c1',
              name: 'shot',
              output: 'files',
              isError: false,
              attachments: [
                { type: 'file', mime: 'image/png', url: 'data:image/png;base64,iVBOR', bestEffort: true },
                { type: 'file', mime: 'application/pdf', url: 'data:application/pdf;base64,JVBE', bestEffort: true },
                { type: 'file', mime: 'audio/wav', url: 'data:audio/wav;base64,UklGRg==', bestEffort: true },
              ],
            },
          ],
        },
      ],
    });
    expect(srv.requests[0].body.messages[2]).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'c1',
          content: [
            { type: 'text', text: 'files' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } },
            { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBE' } },
            { type: 'text', text: '[file (audio/wav, 4 bytes) not shown: this model does not take audio/wav files]' },
          ],
        },
      ],
    });
  });

  it('merges provider options into the body (thinking) but keeps streaming', async () => {
    const srv = await serve([{ text: 'ok' }]);
    const thinking = { type: 'enabled', budget_tokens: 2000 };
    await model(srv).generate({ ...ask(), providerOptions: { thinking, stream: false } });
    expect(srv.requests[0].body).toMatchObject({ stream: true, thinking });
  });

  it('drops reasoning without a signature (from another provider) and marks error results', async () => {
    const srv = await serve([{ text: 'ok' }]);
    await model(srv, { cache: false }).generate({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'go' },
            { type: 'file', mime: 'image/png', url: 'data:image/png;base64,iVBOR' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'deepseek thoughts' },
            { type: 'tool-call', callId: 'c1', name: 'run', args: {} },
          ],
        },
        {
          role: 'tool',
          content: [{ type: 'tool-result', callId: 'c1', name: 'run', output: 'exit 1', isError: true }],
        },
      ],
    });
    expect(srv.requests[0].body.system).toBeUndefined();
    expect(srv.requests[0].body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'go' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'run', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'exit 1', is_error: true }] },
    ]);
  });
});

describe('AnthropicModel: reliability', () => {
  it('retries 529 overloaded, honouring retry-after, then succeeds', async () => {
    const srv = await serve([
      {
        status: 529,
        headers: { 'retry-after': '0' },
        body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      },
      { text: 'fine' },
    ]);
    const retries: RetryInfo[] = [];
    const r = await model(srv, { retry: { ...fast, onRetry: (i) => retries.push(i) } }).generate(ask());
    expect(r.parts).toEqual([{ type: 'text', text: 'fine' }]);
    expect(retries).toMatchObject([{ attempt: 1, delayMs: 0, error: { modelKind: 'server', status: 529 } }]);
  });

  it('retries a 429 then succeeds; gives up on 500 after maxRetries; never retries a 400', async () => {
    const rateLimited = {
      status: 429,
      headers: { 'retry-after': '0' },
      body: {
        type: 'error',
        error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit' },
      },
    };
    const down = {
      status: 500,
      body: { type: 'error', error: { type: 'api_error', message: 'Internal server error' } },
    };
    const bad = {
      status: 400,
      body: {
        type: 'error',
        error: { type: 'invalid_request_error', message: 'messages: at least one message is required' },
      },
    };
    const srv = await serve([rateLimited, { text: 'after the wait' }, down, down, down, bad]);
    expect((await model(srv).generate(ask())).parts).toEqual([{ type: 'text', text: 'after the wait' }]);
    await expect(model(srv).generate(ask())).rejects.toMatchObject({
      modelKind: 'server',
      status: 500,
      retryable: true,
      message: expect.stringMatching(/gave up after 3 attempts/),
    });
    await expect(model(srv).generate(ask())).rejects.toMatchObject({
      modelKind: 'bad_request',
      kind: 'model_request',
      status: 400,
    });
    expect(srv.requests).toHaveLength(6);
  });

  it('retries an error event that arrives before any content', async () => {
    const srv = await serve([
      {
        frames: [
          { event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
        ],
      },
      { text: 'after' },
    ]);
    const r = await model(srv).generate(ask());
    expect(r.parts).toEqual([{ type: 'text', text: 'after' }]);
    expect(srv.requests).toHaveLength(2);
  });

  it('classifies "prompt is too long" as context overflow, and does not retry it', async () => {
    const srv = await serve([
      {
        status: 400,
        body: {
          type: 'error',
          error: { type: 'invalid_request_error', message: 'prompt is too long: 215000 tokens > 200000 maximum' },
        },
      },
    ]);
    const err = await model(srv)
      .generate(ask())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect(err).toMatchObject({ modelKind: 'context_overflow', kind: 'context_overflow', status: 400 });
    expect(srv.requests).toHaveLength(1);
  });

  it('throws a transport error when the stream is cut after output, and on a stream without message_stop', async () => {
    const srv = await serve([
      { text: 'this will be cut short', cutAfter: 5 },
      {
        frames: [
          {
            event: 'message_start',
            data: {
              type: 'message_start',
              message: {
                id: 'm',
                type: 'message',
                role: 'assistant',
                model: 'x',
                content: [],
                stop_reason: null,
                stop_sequence: null,
                usage: { input_tokens: 1, output_tokens: 1 },
              },
            },
          },
        ],
      },
    ]);
    await expect(model(srv).generate(ask())).rejects.toMatchObject({
      modelKind: 'transport',
      message: expect.stringMatching(/not retried/),
    });
    await expect(model(srv, { maxRetries: 0 }).generate(ask())).rejects.toMatchObject({
      modelKind: 'transport',
      message: expect.stringMatching(/message_stop/),
    });
  });

  it('a stream spliced with a second message_start never yields the cut JSON as arguments: it is a protocol error', async () => {
    const start = (id: string) => ({
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model: 'x',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 5, output_tokens: 1 },
        },
      },
    });
    const tool = (id: string) => ({
      event: 'content_block_start',
      data: {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id, name: 'write', input: {} },
      },
    });
    const delta = (json: string) => ({
      event: 'content_block_delta',
      data: { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: json } },
    });
    const end = [
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      {
        event: 'message_delta',
        data: {
          type: 'message_delta',
          delta: { stop_reason: 'tool_use', stop_sequence: null },
          usage: { output_tokens: 9 },
        },
      },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ];
    const spliced = [
      start('m1'),
      tool('toolu_A'),
      delta('{"path": "a.txt", "content": "hal'),
      start('m2'),
      tool('toolu_B'),
      delta('{"path": "b.txt"}'),
      ...end,
    ];
    // The same splice where the second message never reopens the block: its deltas would continue the cut JSON.
    const continued = [
      start('m1'),
      tool('toolu_A'),
      delta('{"path": "a.txt", "content": "hal'),
      start('m2'),
      delta('f"}'),
      ...end,
    ];
    // A tool block the message stops without closing.
    const unclosed = [start('m1'), tool('toolu_A'), delta('{"path": "a.t'), ...end.slice(1)];
    const srv = await serve([{ frames: spliced }, { frames: continued }, { frames: unclosed }]);
    for (const why of [
      /protocol error: a second message_start/,
      /protocol error: a second message_start/,
      /protocol error: tool call toolu_A was not closed/,
    ]) {
      const events: ModelStreamEvent[] = [];
      const err = await model(srv, { maxRetries: 0 })
        .generate(ask(), { onEvent: (e) => events.push(e) })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ModelError);
      expect(err).toMatchObject({ modelKind: 'transport', message: expect.stringMatching(why) });
      expect(events.filter((e) => e.type === 'tool-call')).toEqual([]);
    }
  });

  it('ignores a repeated message_start of the open message (same id), as vercel/ai does; another id stays an error', async () => {
    const start = (id: string, input: number) => ({
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model: 'x',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: input, output_tokens: 1 },
        },
      },
    });
    const text = (index: number, t: string) => [
      {
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
      },
      {
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text: t } },
      },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index } },
    ];
    const end = [
      {
        event: 'message_delta',
        data: {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { output_tokens: 9 },
        },
      },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ];
    const repeated = [start('msg_1', 5), ...text(0, 'Hello, '), start('msg_1', 5), ...text(1, 'world.'), ...end];
    const srv = await serve([
      { frames: repeated },
      { frames: [start('msg_1', 5), ...text(0, 'Hello, '), start('msg_2', 5), ...text(1, 'world.'), ...end] },
    ]);
    const r = await model(srv, { maxRetries: 0 }).generate(ask());
    expect(r.parts).toEqual([{ type: 'text', text: 'Hello, world.' }]);
    expect(r.finishReason).toBe('stop');
    expect(r.usage.input).toBe(5); // the repeat's usage is not counted twice
    await expect(model(srv, { maxRetries: 0 }).generate(ask())).rejects.toMatchObject({
      modelKind: 'transport',
      message: expect.stringMatching(/second message_start in one stream \(msg_2, while msg_1 is open\)/),
    });
  });

  it('aborts mid-stream', async () => {
    const srv = await serve([{ text: 'a very long reply', hangAfter: 4 }]);
    const ctl = new AbortController();
    const p = model(srv).generate(ask(), {
      signal: ctl.signal,
      onEvent: (e) => e.type === 'text-delta' && ctl.abort(),
    });
    await expect(p).rejects.toMatchObject({ modelKind: 'aborted', retryable: false });
    expect(srv.requests).toHaveLength(1);
  });

  it('tells auth failures apart', async () => {
    const srv = await serve([
      { status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } },
    ]);
    await expect(model(srv).generate(ask())).rejects.toMatchObject({ modelKind: 'auth', kind: 'model_request' });
  });
});

describe('AnthropicModel: stream assembly (property)', () => {
  it('reassembles any thinking, text and tool input, whatever the chunking', async () => {
    let current: AnthropicReply = { text: '' };
    const srv = await serve(() => current);
    const m = model(srv);
    const json = fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.string(), fc.integer(), fc.constant(null)), {
      maxKeys: 4,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 60 }),
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.array(json, { maxLength: 3 }),
        fc.integer({ min: 1, max: 9 }),
        async (text, thinking, inputs, chunkSize) => {
          const toolUses = inputs.map((input, i) => ({
            id: `toolu_${i}`,
            name: `t${i}`,
            input: JSON.stringify(input),
          }));
          current = { thinking: { text: thinking, signature: 'sig' }, text, toolUses, chunkSize };
          const r = await m.generate(ask());
          expect(r.parts[0]).toMatchObject({ type: 'reasoning', text: thinking, signature: 'sig' });
          expect(
            r.parts
              .filter((p) => p.type === 'text')
              .map((p) => (p as { text: string }).text)
              .join(''),
          ).toBe(text);
          expect(r.parts.filter((p) => p.type === 'tool-call')).toEqual(
            toolUses.map((t, i) => ({
              type: 'tool-call',
              callId: t.id,
              name: t.name,
              input: t.input,
              args: inputs[i],
            })),
          );
        },
      ),
      { numRuns: 30 },
    );
  });
});
