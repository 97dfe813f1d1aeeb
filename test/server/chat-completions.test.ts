import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { createServeApp } from '../../src/server/index.js';
import { echo, scriptedEngine, serversClosedAfterEach, type TestServer } from './serve-fixtures.js';

const server = serversClosedAfterEach();
type Server = TestServer;
const client = (s: Server, apiKey = 'unused') => new OpenAI({ baseURL: `${s.url}/v1`, apiKey, maxRetries: 0 });
const manifest = async (s: Server, runId: string) =>
  JSON.parse(await readFile(join(s.traceDir, runId, 'manifest.json'), 'utf8'));

describe('POST /v1/chat/completions through the openai SDK', () => {
  it('answers a non-streamed request with the final answer, usage and the run id of its trace', async () => {
    const s = await server();
    const { data, response } = await client(s)
      .chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'hello there' }] })
      .withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.choices[0].message.content).toBe('echo: hello there');
    expect(data.choices[0].finish_reason).toBe('stop');
    expect(data.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 });
    const runId = response.headers.get('x-qitos-run-id')!;
    expect(data.id).toBe(`chatcmpl-${runId}`);
    expect(response.headers.get('x-qitos-stop-reason')).toBe('final');
    expect(await manifest(s, runId)).toMatchObject({
      status: 'completed',
      summary: { stopReason: 'final', finalResult: 'echo: hello there' },
    });
  });

  it("streams the agent's work as reasoning_content, the answer as content, then usage and [DONE]", async () => {
    const s = await server();
    const stream = await client(s).chat.completions.create({
      model: 'adder',
      messages: [{ role: 'user', content: 'add 2 and 3' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    const reasoning = chunks
      .map((c) => (c.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? '')
      .join('');
    // The steps: what the model wrote for the step that acted, the tool call and its result; the answer once, as content.
    expect(reasoning).toContain('Action: add(a=2, b=3)');
    expect(reasoning).toContain('[tool call] add({"a":2,"b":3})\n[tool result] add: 5\n');
    expect(reasoning).not.toContain('Final Answer');
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('5');
    const finish = chunks.filter((c) => c.choices[0]?.finish_reason);
    expect(finish.map((c) => c.choices[0].finish_reason)).toEqual(['stop']);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage?.total_tokens).toBeGreaterThan(0);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    const m = await manifest(s, chunks[0].id.replace('chatcmpl-', ''));
    expect(m.summary).toMatchObject({ stopReason: 'final', finalResult: '5', steps: 2 });
  });

  it('sends the exact OpenAI wire format: data lines, no usage field without include_usage, [DONE] last', async () => {
    const s = await server();
    const res = await fetch(`${s.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'echo', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('x-qitos-run-id')).toMatch(/\S/);
    const frames = (await res.text()).split('\n\n').filter(Boolean);
    expect(frames.every((f) => f.startsWith('data: '))).toBe(true);
    expect(frames.at(-1)).toBe('data: [DONE]');
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f.slice(6)));
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && !('usage' in c))).toBe(true);
    expect(chunks.at(-1).choices[0]).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' });
  });

  it('the app alone (app.fetch, no Node server under it) streams the same frames through web streams', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'qitos-serve-app-'));
    try {
      const { app } = createServeApp({ agents: [{ id: 'echo', engine: scriptedEngine(dir, echo) }], traceDir: dir });
      const body = (n: number) =>
        JSON.stringify({ model: 'echo', stream: true, messages: [{ role: 'user', content: `hi ${n}` }] });
      const res = await app.request('/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: body(1),
      });
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const frames = (await res.text()).split('\n\n').filter(Boolean);
      expect(frames.at(-1)).toBe('data: [DONE]');
      const chunks = frames.slice(0, -1).map((f) => JSON.parse(f.slice(6)));
      expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe('echo: hi 1');
      expect(chunks.at(-1).choices[0].finish_reason).toBe('stop');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the app alone caps the request body too: 413 past maxBodyBytes, streamed or not', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'qitos-serve-app-'));
    try {
      const { app } = createServeApp({
        agents: [{ id: 'echo', engine: scriptedEngine(dir, echo) }],
        traceDir: dir,
        maxBodyBytes: 200,
      });
      const big = JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'x'.repeat(500) }] });
      const streamed = new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < big.length; i += 100) c.enqueue(new TextEncoder().encode(big.slice(i, i + 100)));
          c.close();
        },
      });
      for (const body of [big, streamed]) {
        const res = await app.request('/v1/chat/completions', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          duplex: 'half',
        } as RequestInit);
        expect(res.status).toBe(413);
        expect((await res.json()).error.code).toBe('request_too_large');
      }
      const ok = await app.request('/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect((await ok.json()).choices[0].message.content).toBe('echo: hi');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("turns earlier messages into the run's history and system messages into client instructions", async () => {
    const s = await server();
    const { response } = await client(s)
      .chat.completions.create({
        model: 'echo',
        messages: [
          { role: 'system', content: 'Answer in French.' },
          { role: 'user', content: 'first question' },
          { role: 'assistant', content: 'first answer' },
          { role: 'user', content: [{ type: 'text', text: 'second question' }] },
        ],
      })
      .withResponse();
    const steps = (await readFile(join(s.traceDir, response.headers.get('x-qitos-run-id')!, 'steps.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const m = await manifest(s, response.headers.get('x-qitos-run-id')!);
    expect(m.task.objective).toBe('second question');
    const texts = m.initialState?.messages?.map((x: { parts: Array<{ text?: string }> }) => x.parts[0].text) ?? [];
    expect(texts).toEqual([
      'Instructions from the client:\nAnswer in French.',
      'first question',
      'first answer',
      'second question',
    ]);
    expect(steps).toHaveLength(1);
  });

  it('answers an unknown model 404 model_not_found, as OpenAI does', async () => {
    const s = await server();
    const err = await client(s)
      .chat.completions.create({ model: 'gpt-9', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect((err as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
  });

  it('lists the agents as models', async () => {
    const s = await server();
    const ids = [];
    for await (const m of client(s).models.list()) ids.push(m.id);
    expect(ids).toEqual(['echo', 'adder', 'slow']);
  });
});
