import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { ModelMessage, ModelRequest, ModelStreamEvent } from '../../src/core/index.js';
import { ModelError } from '../../src/core/index.js';
import { OpenAICompatibleModel, createModel, type RetryInfo } from '../../src/models/index.js';
import { startFakeOpenAI, type FakeServer, type OpenAIReply } from '../../src/kit/testing/fake-llm-servers.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(
  script: Parameters<typeof startFakeOpenAI>[0],
  options?: Parameters<typeof startFakeOpenAI>[1],
): Promise<FakeServer> {
  const s = await startFakeOpenAI(script, options);
  servers.push(s);
  return s;
}

const user = (text: string): ModelMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const ask = (text = 'hi'): ModelRequest => ({ messages: [{ role: 'system', content: 'be brief' }, user(text)] });
/** Fast retries so tests do not sleep for real backoff. */
const fast = { baseDelayMs: 1, maxDelayMs: 5 };

function model(srv: FakeServer, spec = 'openai:gpt-4o-mini', extra: Parameters<typeof createModel>[1] = {}) {
  return createModel(spec, { baseURL: srv.url, apiKey: 'test-key', env: {}, retry: fast, ...extra });
}

function collect(): { events: ModelStreamEvent[]; onEvent: (e: ModelStreamEvent) => void } {
  const events: ModelStreamEvent[] = [];
  return { events, onEvent: (e) => events.push(e) };
}

describe('OpenAICompatibleModel: streaming', () => {
  it('streams text as many deltas and returns the text, usage and cost', async () => {
    const srv = await serve([
      { text: 'The answer is forty-two.', usage: { prompt_tokens: 1000, completion_tokens: 2000, total_tokens: 3000 } },
    ]);
    const { events, onEvent } = collect();
    const r = await model(srv).generate(ask('what is it?'), { onEvent });

    expect(r.parts).toEqual([{ type: 'text', text: 'The answer is forty-two.' }]);
    expect(r.finishReason).toBe('stop');
    expect(r.usage).toEqual({ input: 1000, output: 2000, reasoning: 0, cache: { read: 0, write: 0 } });
    // gpt-4o-mini: $0.15 in, $0.60 out per 1M tokens
    expect(r.cost).toBeCloseTo((1000 * 0.15 + 2000 * 0.6) / 1e6, 12);
    expect(r.modelId).toBe('openai:gpt-4o-mini');

    const deltas = events.filter((e) => e.type === 'text-delta');
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.map((e) => (e.type === 'text-delta' ? e.delta : '')).join('')).toBe('The answer is forty-two.');
    expect(events[0]).toEqual({ type: 'step-start' });
    expect(events.at(-1)).toEqual({ type: 'step-finish', finishReason: 'stop', usage: r.usage, cost: r.cost });

    const body = srv.requests[0].body;
    expect(srv.requests[0].headers.authorization).toBe('Bearer test-key');
    expect(body).toMatchObject({ model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true } });
    expect(body.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'what is it?' },
    ]);
  });

  it('assembles tool calls split across many chunks, by index', async () => {
    const args1 = JSON.stringify({ path: 'src/a.ts', content: 'export const x = "{}";\n' });
    const args2 = JSON.stringify({ a: 1, b: [2, 3] });
    const srv = await serve([
      {
        text: 'Calling.',
        toolCalls: [
          { id: 'call_A', name: 'write', arguments: args1 },
          { id: 'call_B', name: 'add', arguments: args2 },
        ],
        chunkSize: 2,
      },
    ]);
    const { events, onEvent } = collect();
    const tools = [
      {
        name: 'write',
        description: 'write a file',
        inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
      },
      { name: 'add', description: 'add', inputSchema: { type: 'object' } },
    ];
    const r = await model(srv).generate({ ...ask(), tools, toolChoice: 'required' }, { onEvent });

    expect(r.finishReason).toBe('tool-calls');
    expect(r.parts).toEqual([
      { type: 'text', text: 'Calling.' },
      { type: 'tool-call', callId: 'call_A', name: 'write', input: args1, args: JSON.parse(args1) },
      { type: 'tool-call', callId: 'call_B', name: 'add', input: args2, args: { a: 1, b: [2, 3] } },
    ]);
    const inputDeltas = events.filter((e) => e.type === 'tool-input-delta' && e.callId === 'call_A');
    expect(inputDeltas.length).toBeGreaterThan(10);
    expect(events.filter((e) => e.type === 'tool-input-start')).toEqual([
      { type: 'tool-input-start', callId: 'call_A', name: 'write' },
      { type: 'tool-input-start', callId: 'call_B', name: 'add' },
    ]);
    expect(events.filter((e) => e.type === 'tool-call')).toEqual([
      { type: 'tool-call', callId: 'call_A', name: 'write', input: args1 },
      { type: 'tool-call', callId: 'call_B', name: 'add', input: args2 },
    ]);
    const body = srv.requests[0].body;
    expect(body.tools).toEqual(
      tools.map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.inputSchema },
      })),
    );
    expect(body.tool_choice).toBe('required');
  });

  it('attributes interleaved tool-call deltas to their call by index, also several calls in one chunk', async () => {
    const base = { id: 'chatcmpl-x', object: 'chat.completion.chunk', created: 1, model: 'm' };
    const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
      ...base,
      choices: [{ index: 0, delta: d, finish_reason: finish }],
    });
    const tc = (index: number, f: Record<string, unknown>, id?: string) => ({
      index,
      ...(id ? { id, type: 'function' } : {}),
      function: f,
    });
    const frames = [
      delta({ role: 'assistant', content: null }),
      // both calls open in one chunk, then their arguments arrive interleaved (continuations carry only the index)
      delta({
        tool_calls: [
          tc(0, { name: 'read', arguments: '' }, 'call_0'),
          tc(1, { name: 'add', arguments: '{"a"' }, 'call_1'),
        ],
      }),
      delta({ tool_calls: [tc(0, { arguments: '{"path":' })] }),
      delta({ tool_calls: [tc(1, { arguments: ': 1, "b": 2}' })] }),
      delta({ tool_calls: [tc(0, { arguments: ' "x.txt"}' })] }),
      delta({}, 'tool_calls'),
      { ...base, choices: [], usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 } },
    ];
    const srv = await serve([{ frames }]);
    const r = await model(srv).generate(ask());
    expect(r.parts).toEqual([
      { type: 'tool-call', callId: 'call_0', name: 'read', input: '{"path": "x.txt"}', args: { path: 'x.txt' } },
      { type: 'tool-call', callId: 'call_1', name: 'add', input: '{"a": 1, "b": 2}', args: { a: 1, b: 2 } },
    ]);
    expect(r.finishReason).toBe('tool-calls');
    expect(r.usage).toMatchObject({ input: 5, output: 7 });
  });

  it('keeps malformed tool arguments raw, with no args, instead of failing', async () => {
    const broken = '{"path": "a.txt", "content": "unterminated';
    const srv = await serve([{ toolCalls: [{ id: 'c1', name: 'write', arguments: broken }] }]);
    const r = await model(srv).generate(ask());
    expect(r.parts).toEqual([{ type: 'tool-call', callId: 'c1', name: 'write', input: broken }]);
    expect(r.finishReason).toBe('tool-calls');
  });

  it('surfaces reasoning_content as reasoning events and a reasoning part before the text', async () => {
    const srv = await serve([
      {
        reasoning: 'First, 6 times 7 is 42.',
        text: '42',
        usage: {
          prompt_tokens: 20,
          completion_tokens: 30,
          total_tokens: 50,
          completion_tokens_details: { reasoning_tokens: 25 },
        },
      },
    ]);
    const { events, onEvent } = collect();
    const r = await model(srv, 'deepseek:deepseek-reasoner').generate(ask(), { onEvent });

    expect(r.parts.map((p) => p.type)).toEqual(['reasoning', 'text']);
    expect(r.parts[0]).toMatchObject({ type: 'reasoning', text: 'First, 6 times 7 is 42.' });
    expect(r.usage.reasoning).toBe(25);
    const types = events.map((e) => e.type);
    expect(types.indexOf('reasoning-start')).toBeLessThan(types.indexOf('reasoning-delta'));
    expect(types.lastIndexOf('reasoning-delta')).toBeLessThan(types.indexOf('reasoning-end'));
    expect(types.indexOf('reasoning-end')).toBeLessThan(types.indexOf('text-delta'));
    const ids = new Set(events.flatMap((e) => ('id' in e ? [e.id] : [])));
    expect(ids.size).toBe(1);
  });

  it('accepts `reasoning` deltas too (vLLM, Ollama)', async () => {
    const base = { id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm' };
    const srv = await serve([
      {
        frames: [
          { ...base, choices: [{ index: 0, delta: { role: 'assistant', reasoning: 'hmm ' } }] },
          { ...base, choices: [{ index: 0, delta: { reasoning: 'ok' } }] },
          { ...base, choices: [{ index: 0, delta: { content: 'done' }, finish_reason: 'stop' }] },
        ],
      },
    ]);
    const r = await model(srv, 'vllm:qwen3').generate(ask());
    expect(r.parts).toMatchObject([
      { type: 'reasoning', text: 'hmm ok' },
      { type: 'text', text: 'done' },
    ]);
    expect(r.usage).toEqual({ input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } });
    expect(r.cost).toBe(0); // a local server with no usage report: no bill
  });

  it('reads cached prompt tokens out of input (OpenAI cached_tokens, DeepSeek prompt_cache_hit_tokens)', async () => {
    const srv = await serve([
      {
        text: 'a',
        usage: {
          prompt_tokens: 1000,
          completion_tokens: 10,
          total_tokens: 1010,
          prompt_tokens_details: { cached_tokens: 800 },
        },
      },
      {
        text: 'b',
        usage: {
          prompt_tokens: 1000,
          completion_tokens: 10,
          total_tokens: 1010,
          prompt_cache_hit_tokens: 600,
          prompt_cache_miss_tokens: 400,
        },
      },
    ]);
    const a = await model(srv).generate(ask());
    expect(a.usage).toEqual({ input: 200, output: 10, reasoning: 0, cache: { read: 800, write: 0 } });
    expect(a.cost).toBeCloseTo((200 * 0.15 + 10 * 0.6 + 800 * 0.075) / 1e6, 12);
    const b = await model(srv, 'deepseek:deepseek-chat').generate(ask());
    expect(b.usage).toEqual({ input: 400, output: 10, reasoning: 0, cache: { read: 600, write: 0 } });
  });

  it('gives cost null, not 0, for a model without a known price, and uses an override when given', async () => {
    const srv = await serve([{ text: 'x' }, { text: 'y' }, { text: 'z' }]);
    expect((await model(srv, 'openai:some-new-model').generate(ask())).cost).toBeNull();
    const priced = await model(srv, 'openai:some-new-model', {
      pricing: { 'openai:some-new-model': { input: 1, output: 2 } },
    }).generate(ask());
    expect(priced.cost).toBeCloseTo((10 * 1 + priced.usage.output * 2) / 1e6, 12);
    expect((await model(srv, 'ollama:llama3.2', { price: null }).generate(ask())).cost).toBeNull();
  });

  it('maps finish reasons onto the one enum', async () => {
    const srv = await serve([
      { text: 'cut', finishReason: 'length' },
      { text: 'no', finishReason: 'content_filter' },
      { toolCalls: [{ name: 't', arguments: '{}' }], finishReason: 'stop' },
    ]);
    const m = model(srv, 'ollama:qwen2.5');
    expect((await m.generate(ask())).finishReason).toBe('length');
    expect((await m.generate(ask())).finishReason).toBe('content-filter');
    expect((await m.generate(ask())).finishReason).toBe('tool-calls'); // Ollama says "stop" after tool calls
  });

  it('serves many concurrent calls', async () => {
    const srv = await serve((req) => ({ text: `echo ${req.body.messages.at(-1).content}`, chunkSize: 4 }), {
      delayMs: 20,
    });
    const m = model(srv);
    const replies = await Promise.all(Array.from({ length: 24 }, (_, i) => m.generate(ask(`n${i}`))));
    expect(replies.map((r) => (r.parts[0] as { text: string }).text)).toEqual(
      Array.from({ length: 24 }, (_, i) => `echo n${i}`),
    );
  });
});

describe('OpenAICompatibleModel: message conversion', () => {
  const history: ModelMessage[] = [
    { role: 'system', content: 'sys' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        { type: 'file', mime: 'image/png', url: 'data:image/png;base64,AAAA' },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'I should read it.' },
        { type: 'text', text: 'Reading.' },
        { type: 'tool-call', callId: 'c1', name: 'read', args: { path: 'a' } },
        { type: 'tool-call', callId: 'c2', name: 'read', args: { path: 'b' } },
      ],
    },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', callId: 'c1', name: 'read', output: 'A', isError: false },
        { type: 'tool-result', callId: 'c2', name: 'read', output: 'no such file', isError: true },
      ],
    },
  ];

  it('sends tool calls, tool results by id, images, and drops reasoning for OpenAI', async () => {
    const srv = await serve([{ text: 'ok' }]);
    await model(srv).generate({ messages: history });
    expect(srv.requests[0].body.messages).toEqual([
      { role: 'system', content: 'sys' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
      {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } },
          { id: 'c2', type: 'function', function: { name: 'read', arguments: '{"path":"b"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'A' },
      { role: 'tool', tool_call_id: 'c2', content: 'Error: no such file' },
    ]);
  });

  it('passes reasoning back as reasoning_content for DeepSeek and Zhipu', async () => {
    const srv = await serve([{ text: 'ok' }, { text: 'ok' }]);
    await model(srv, 'deepseek:deepseek-reasoner').generate({ messages: history });
    await model(srv, 'zhipu:glm-4.6').generate({ messages: history });
    for (const r of srv.requests) expect(r.body.messages[2].reasoning_content).toBe('I should read it.');
  });

  it('sends sampling parameters and the output limit under the field each server wants', async () => {
    const srv = await serve([{ text: 'a' }, { text: 'b' }]);
    const req: ModelRequest = {
      ...ask(),
      temperature: 0.2,
      topP: 0.9,
      maxOutputTokens: 100,
      stop: ['END'],
      seed: 7,
      providerOptions: { reasoning_effort: 'low' },
    };
    await model(srv).generate(req);
    await model(srv, 'vllm:llama').generate(req);
    expect(srv.requests[0].body).toMatchObject({
      temperature: 0.2,
      top_p: 0.9,
      max_completion_tokens: 100,
      stop: ['END'],
      seed: 7,
      reasoning_effort: 'low',
    });
    expect(srv.requests[1].body).toMatchObject({ max_tokens: 100 });
    expect(srv.requests[1].body.max_completion_tokens).toBeUndefined();
  });

  it('keeps streaming when provider options say stream: false (the reply is read as a stream)', async () => {
    const srv = await serve([{ text: 'streamed anyway' }]);
    const r = await model(srv).generate({ ...ask(), providerOptions: { stream: false, reasoning_effort: 'high' } });
    expect(r.parts).toEqual([{ type: 'text', text: 'streamed anyway' }]);
    expect(srv.requests[0].body).toMatchObject({ stream: true, reasoning_effort: 'high' });
  });

  it('sends the files of tool results in a user message after the tool messages; types it cannot carry become a note', async () => {
    const srv = await serve([{ text: 'ok' }]);
    const files = [
      { type: 'file' as const, mime: 'image/png', url: 'data:image/png;base64,iVBO', bestEffort: true },
      {
        type: 'file' as const,
        mime: 'audio/wav',
        url: 'data:audio/wav;base64,UklGRg==',
        filename: 'hi.wav',
        bestEffort: true,
      },
    ];
    await model(srv).generate({
      messages: [
        { role: 'assistant', content: [{ type: 'tool-call', callId: 'c1', name: 'shot', args: {} }] },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              callId: 'c1',
              name: 'shot',
              output: 'two files',
              isError: false,
              attachments: files,
            },
          ],
        },
        { role: 'user', content: [{ type: 'text', text: 'a wav from a tool, in a user turn' }, files[1]] },
      ],
    });
    const note = '[file hi.wav (audio/wav, 4 bytes) not shown: this model does not take audio/wav files]';
    expect(srv.requests[0].body.messages.slice(1)).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: 'two files' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Files returned by the tool calls above:' },
          { type: 'text', text: 'shot (c1): image/png' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBO' } },
          { type: 'text', text: 'shot (c1): hi.wav' },
          { type: 'text', text: note },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a wav from a tool, in a user turn' },
          { type: 'text', text: note },
        ],
      },
    ]);
  });

  it('rejects a file type the protocol cannot carry, naming it', async () => {
    const srv = await serve([]);
    const req: ModelRequest = {
      messages: [
        { role: 'user', content: [{ type: 'file', mime: 'application/zip', url: 'data:application/zip;base64,AA' }] },
      ],
    };
    await expect(model(srv).generate(req)).rejects.toThrow(/application\/zip/);
    expect(srv.requests).toHaveLength(0);
  });

  it('rejects a text data: URL with malformed percent-encoding as a bad request, naming it', async () => {
    const srv = await serve([]);
    const req: ModelRequest = {
      messages: [
        { role: 'user', content: [{ type: 'file', mime: 'text/plain', url: 'data:text/plain,100%25 and 50%' }] },
      ],
    };
    await expect(model(srv).generate(req)).rejects.toMatchObject({
      modelKind: 'bad_request',
      message: expect.stringMatching(/text\/plain data: URL has malformed percent-encoding/),
    });
    expect(srv.requests).toHaveLength(0);
  });
});

describe('OpenAICompatibleModel: reliability', () => {
  it('retries a 429, waiting what retry-after asks (capped), then succeeds', async () => {
    const srv = await serve([
      {
        status: 429,
        headers: { 'retry-after': '30' },
        body: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } },
      },
      { text: 'ok' },
    ]);
    const retries: RetryInfo[] = [];
    const { events, onEvent } = collect();
    const m = model(srv, 'openai:gpt-4o-mini', {
      retry: { ...fast, maxRetryAfterMs: 40, onRetry: (i) => retries.push(i) },
    });
    const t0 = Date.now();
    const r = await m.generate(ask(), { onEvent });
    expect(r.parts).toEqual([{ type: 'text', text: 'ok' }]);
    expect(srv.requests).toHaveLength(2);
    expect(retries).toHaveLength(1);
    expect(retries[0].delayMs).toBe(40);
    expect(retries[0].error.modelKind).toBe('rate_limit');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(35);
    expect(events.filter((e) => e.type === 'step-start')).toHaveLength(1);
  });

  it('gives up on a 500 after maxRetries, as a retryable server error', async () => {
    const srv = await serve(
      Array.from({ length: 5 }, () => ({
        status: 500,
        body: { error: { message: 'upstream exploded', type: 'server_error' } },
      })),
    );
    const err = await model(srv, 'openai:gpt-4o-mini', { maxRetries: 2 })
      .generate(ask())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect(err).toMatchObject({ modelKind: 'server', status: 500, kind: 'model_transport', retryable: true });
    expect((err as Error).message).toMatch(/upstream exploded.*3 attempts/);
    expect(srv.requests).toHaveLength(3);
  });

  it('does not retry a 400, and tells auth failures apart', async () => {
    const srv = await serve([
      { status: 400, body: { error: { message: "Invalid value for 'temperature'", type: 'invalid_request_error' } } },
      {
        status: 401,
        body: {
          error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' },
        },
      },
    ]);
    await expect(model(srv).generate(ask())).rejects.toMatchObject({
      modelKind: 'bad_request',
      kind: 'model_request',
      retryable: false,
    });
    await expect(model(srv).generate(ask())).rejects.toMatchObject({ modelKind: 'auth', status: 401 });
    expect(srv.requests).toHaveLength(2);
  });

  it('classifies context-length errors as context_overflow, without retrying', async () => {
    const srv = await serve([
      {
        status: 400,
        body: {
          error: {
            message:
              "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
            type: 'invalid_request_error',
            code: 'context_length_exceeded',
          },
        },
      },
      {
        status: 400,
        body: {
          object: 'error',
          message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens",
          type: 'BadRequestError',
          code: 400,
        },
      },
      {
        status: 400,
        body: {
          error: {
            message: 'the request exceeds the available context size, try increasing it',
            type: 'exceed_context_size_error',
          },
        },
      },
    ]);
    for (let i = 0; i < 3; i++)
      await expect(model(srv).generate(ask())).rejects.toMatchObject({
        modelKind: 'context_overflow',
        kind: 'context_overflow',
      });
    expect(srv.requests).toHaveLength(3);
  });

  it('throws a transport error, without retrying, when the stream is cut after text was emitted', async () => {
    const srv = await serve([{ text: 'a long answer that will be cut', cutAfter: 5 }, { text: 'never served' }]);
    const { events, onEvent } = collect();
    const err = await model(srv)
      .generate(ask(), { onEvent })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ modelKind: 'transport', kind: 'model_transport' });
    expect((err as Error).message).toMatch(/not retried/);
    expect(srv.requests).toHaveLength(1);
    expect(events.some((e) => e.type === 'text-delta')).toBe(true);
    expect(events.some((e) => e.type === 'step-finish')).toBe(false);
  });

  it('retries a stream cut before any output', async () => {
    const srv = await serve([{ text: 'first', cutAfter: 1 }, { text: 'second' }]);
    const { events, onEvent } = collect();
    const r = await model(srv).generate(ask(), { onEvent });
    expect(r.parts).toEqual([{ type: 'text', text: 'second' }]);
    expect(srv.requests).toHaveLength(2);
    expect(events.filter((e) => e.type === 'step-start')).toHaveLength(1);
  });

  it('treats a stream that ends without a finish reason as cut', async () => {
    const base = { id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm' };
    const srv = await serve([{ frames: [{ ...base, choices: [{ index: 0, delta: { content: 'partial' } }] }] }]);
    await expect(model(srv, 'openai:gpt-4o-mini', { maxRetries: 0 }).generate(ask())).rejects.toMatchObject({
      modelKind: 'transport',
      message: expect.stringMatching(/finish_reason/),
    });
  });

  it('aborts mid-stream through the signal: kind aborted, never retried', async () => {
    const srv = await serve([{ text: 'streaming forever', chunkSize: 2, hangAfter: 3 }, { text: 'never' }]);
    const ctl = new AbortController();
    const err = await model(srv)
      .generate(ask(), { signal: ctl.signal, onEvent: (e) => e.type === 'text-delta' && ctl.abort() })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect(err).toMatchObject({ modelKind: 'aborted', kind: 'aborted', retryable: false });
    expect(srv.requests).toHaveLength(1);
  });

  it('aborts while waiting to retry', async () => {
    const srv = await serve([{ status: 503, headers: { 'retry-after': '10' }, body: { error: { message: 'busy' } } }]);
    const ctl = new AbortController();
    const m = model(srv, 'openai:gpt-4o-mini', { retry: { onRetry: () => setTimeout(() => ctl.abort(), 10) } });
    const t0 = Date.now();
    await expect(m.generate(ask(), { signal: ctl.signal })).rejects.toMatchObject({ modelKind: 'aborted' });
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('times out an attempt that takes too long, then retries it', async () => {
    const srv = await serve([{ text: 'slow', delayMs: 500 }, { text: 'fast' }]);
    const retries: RetryInfo[] = [];
    const m = model(srv, 'openai:gpt-4o-mini', { timeoutMs: 60, retry: { ...fast, onRetry: (i) => retries.push(i) } });
    const r = await m.generate(ask());
    expect(r.parts).toEqual([{ type: 'text', text: 'fast' }]);
    expect(retries[0].error.modelKind).toBe('timeout');
  });

  it('reports an error frame inside the stream', async () => {
    const srv = await serve([
      { frames: [{ error: { message: 'model overloaded', type: 'server_error' } }] },
      { text: 'recovered' },
    ]);
    const r = await model(srv).generate(ask());
    expect(r.parts).toEqual([{ type: 'text', text: 'recovered' }]);
    expect(srv.requests).toHaveLength(2);
  });

  it('an error event inside a 200 stream is that error: a 400 context-length complaint is context_overflow, not retried', async () => {
    const tooLong = {
      object: 'error',
      message: "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.",
      type: 'BadRequestError',
      param: null,
      code: 400,
    };
    const srv = await serve([
      { frames: [{ sse: `event: error\ndata: ${JSON.stringify(tooLong)}` }] },
      { text: 'never asked' },
    ]);
    await expect(model(srv).generate(ask())).rejects.toMatchObject({
      modelKind: 'context_overflow',
      kind: 'context_overflow',
      status: 400,
      retryable: false,
    });
    expect(srv.requests).toHaveLength(1);
  });

  it('an error frame with a 4xx code is that error (bad_request, not retried); a 5xx code is a retryable server error', async () => {
    const bad = { error: { message: "Invalid 'messages[1].content'", type: 'BadRequestError', code: 400 } };
    const srv = await serve([
      { frames: [bad] },
      { frames: [{ sse: `event: error\ndata: ${JSON.stringify(bad.error)}` }] },
      { frames: [{ error: { message: 'busy', code: '503' } }] },
      { text: 'after the 503' },
    ]);
    await expect(model(srv).generate(ask())).rejects.toMatchObject({
      modelKind: 'bad_request',
      status: 400,
      message: expect.stringContaining("Invalid 'messages[1].content'"),
    });
    await expect(model(srv).generate(ask())).rejects.toMatchObject({ modelKind: 'bad_request', status: 400 });
    expect((await model(srv).generate(ask())).parts).toEqual([{ type: 'text', text: 'after the 503' }]);
    expect(srv.requests).toHaveLength(4);
  });

  it('a streamed tool call without a function name is a protocol error, not a call to ""', async () => {
    const nameless = {
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              { index: 0, id: 'call_1', type: 'function', function: { arguments: '{"path":"/etc/passwd"}' } },
            ],
          },
          finish_reason: null,
        },
      ],
    };
    const end = { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] };
    const srv = await serve([{ frames: [nameless, end] }]);
    const { events, onEvent } = collect();
    const err = await model(srv, 'openai:gpt-4o-mini', { maxRetries: 0 })
      .generate(ask(), { onEvent })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect(err).toMatchObject({
      modelKind: 'transport',
      message: expect.stringMatching(/protocol error: tool call call_1 has no function name/),
    });
    expect(events.filter((e) => e.type === 'tool-call' || e.type === 'tool-input-start')).toEqual([]);
  });

  it('reports a connection refused as an unreachable endpoint, naming the URL: retried, then it ends a run', async () => {
    const srv = await serve([]);
    const url = srv.url;
    await srv.close();
    servers.length = 0;
    const m = new OpenAICompatibleModel({ model: 'm', baseURL: url, apiKey: 'k', maxRetries: 1, retry: fast });
    const err = await m.generate(ask()).catch((e: unknown) => e);
    expect(err).toMatchObject({ modelKind: 'unreachable', kind: 'model_request', retryable: true });
    expect((err as Error).message).toContain(`cannot reach ${url.replace(/\/$/, '')}: connection refused`);
  });
});

describe('fake OpenAI server', () => {
  it('records every request body', async () => {
    const replies: OpenAIReply[] = [{ text: 'one' }, { text: 'two' }];
    const srv = await serve(replies);
    const m = model(srv);
    await m.generate(ask('first'));
    await m.generate(ask('second'));
    expect(srv.requests.map((r) => r.body.messages[1].content)).toEqual(['first', 'second']);
  });
});

describe('OpenAICompatibleModel: stream assembly (property)', () => {
  it('reassembles any text, reasoning and tool arguments, whatever the chunking', async () => {
    let current: OpenAIReply = { text: '' };
    const srv = await serve(() => current);
    const m = model(srv);
    const json = fc.dictionary(
      fc.string({ maxLength: 6 }),
      fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)),
      { maxKeys: 4 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'grapheme', maxLength: 60 }),
        fc.string({ maxLength: 40 }),
        fc.array(json, { maxLength: 3 }),
        fc.integer({ min: 1, max: 9 }),
        async (text, reasoning, calls, chunkSize) => {
          const toolCalls = calls.map((args, i) => ({
            id: `c${i}`,
            name: `tool_${i}`,
            arguments: JSON.stringify(args),
          }));
          current = { text, reasoning, toolCalls, chunkSize };
          const r = await m.generate(ask());
          expect(
            r.parts
              .filter((p) => p.type === 'text')
              .map((p) => (p as { text: string }).text)
              .join(''),
          ).toBe(text);
          expect(
            r.parts
              .filter((p) => p.type === 'reasoning')
              .map((p) => (p as { text: string }).text)
              .join(''),
          ).toBe(reasoning);
          expect(r.parts.filter((p) => p.type === 'tool-call')).toEqual(
            toolCalls.map((c, i) => ({
              type: 'tool-call',
              callId: c.id,
              name: c.name,
              input: c.arguments,
              args: calls[i],
            })),
          );
        },
      ),
      { numRuns: 30 },
    );
  });
});
