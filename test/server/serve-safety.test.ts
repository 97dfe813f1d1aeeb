import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { isLoopback, startServer } from '../../src/server/index.js';
import { serversClosedAfterEach, testServer, type TestServer } from './serve-fixtures.js';

const server = serversClosedAfterEach();
type Server = TestServer;
const manifest = async (s: Server, runId: string) =>
  JSON.parse(await readFile(join(s.traceDir, runId, 'manifest.json'), 'utf8'));
const post = (s: Server, body: string, headers: Record<string, string> = {}) =>
  fetch(`${s.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
const hi = JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'hi' }] });

/** Waits until `check` holds (polling), or fails after `ms`. */
async function until(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('malformed requests get OpenAI error JSON with the right status', () => {
  it.each([
    ['bad JSON', '{"model": "echo", "messages": [', 400, null, 'invalid_json'],
    ['an empty body', '', 400, null, null],
    ['messages of the wrong type', JSON.stringify({ model: 'echo', messages: 'hi' }), 400, 'messages', null],
    ['a missing model', JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }), 400, 'model', null],
    [
      'an unknown role',
      JSON.stringify({ model: 'echo', messages: [{ role: 'wizard', content: 'x' }] }),
      400,
      'messages.0.role',
      null,
    ],
    ['no messages', JSON.stringify({ model: 'echo', messages: [] }), 400, 'messages', null],
    [
      "a last message that is not the user's",
      JSON.stringify({
        model: 'echo',
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: 'b' },
        ],
      }),
      400,
      'messages.1.role',
      null,
    ],
    [
      'client-side tools',
      JSON.stringify({
        model: 'echo',
        messages: [{ role: 'user', content: 'x' }],
        tools: [{ type: 'function', function: { name: 'f' } }],
      }),
      400,
      'tools',
      null,
    ],
    [
      'stream that is not a boolean',
      JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'x' }], stream: 'yes' }),
      400,
      'stream',
      null,
    ],
  ])('%s', async (_what, body, status, param, code) => {
    const s = await server();
    const res = await post(s, body);
    expect(res.status).toBe(status);
    const json = await res.json();
    expect(Object.keys(json.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    expect(json.error.type).toBe('invalid_request_error');
    expect(json.error.param).toBe(param);
    if (code) expect(json.error.code).toBe(code);
    expect(json.error.message.length).toBeGreaterThan(5);
  });

  it('refuses a body over the cap with 413 before reading it all', async () => {
    const s = await server({ maxBodyBytes: 1000 });
    const res = await post(
      s,
      JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'x'.repeat(5000) }] }),
    );
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe('request_too_large');
  });

  it('cuts a chunked body (no declared length) off at the cap with 413, and reads one under it', async () => {
    const s = await server({ maxBodyBytes: 1000 });
    /** POSTs `parts` as a chunked body (each part its own write) and returns the status and JSON answer. */
    const chunked = (parts: string[]) =>
      new Promise<{
        status: number;
        body: { error?: { code: string | null }; choices?: Array<{ message: { content: string } }> };
      }>((resolve, reject) => {
        const req = request(
          `${s.url}/v1/chat/completions`,
          { method: 'POST', headers: { 'content-type': 'application/json' } },
          (res) => {
            let text = '';
            res.setEncoding('utf8').on('data', (t: string) => (text += t));
            res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
          },
        );
        req.on('error', reject);
        for (const p of parts) req.write(p);
        req.end();
      });
    const big = JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'x'.repeat(5000) }] });
    const over = await chunked([big.slice(0, 600), big.slice(600, 1200), big.slice(1200)]);
    expect(over.status).toBe(413);
    expect(over.body.error?.code).toBe('request_too_large');
    const small = JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'in parts' }] });
    const under = await chunked([small.slice(0, 10), small.slice(10)]);
    expect(under.status).toBe(200);
    expect(under.body.choices?.[0].message.content).toBe('echo: in parts');
  });

  it('answers unknown routes 404 in the same shape', async () => {
    const s = await server();
    const res = await fetch(`${s.url}/v1/nothing`);
    expect(res.status).toBe(404);
    expect((await res.json()).error.type).toBe('invalid_request_error');
  });
});

describe('the bearer token', () => {
  it("is required on every route when set: missing or wrong is 401 invalid_api_key, the SDK's AuthenticationError", async () => {
    const s = await server({ token: 's3cret' });
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: 's3cret' }] as Array<
      Record<string, string>
    >) {
      const res = await post(s, hi, headers);
      expect(res.status).toBe(401);
      expect((await res.json()).error.code).toBe('invalid_api_key');
    }
    expect((await fetch(`${s.url}/v1/runs`)).status).toBe(401);
    const bad = await new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'nope', maxRetries: 0 }).models
      .list()
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(OpenAI.AuthenticationError);
    const ok = await new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 's3cret', maxRetries: 0 }).chat.completions.create({
      model: 'echo',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(ok.choices[0].message.content).toBe('echo: hi');
  });

  it('must be set to listen beyond loopback; on loopback without one the server says so', async () => {
    await expect(startServer({ agents: [], traceDir: '/tmp/x', host: '0.0.0.0', port: 0 })).rejects.toThrow(
      /token is required to listen on 0\.0\.0\.0/,
    );
    const s = await server();
    expect(s.authNote).toMatch(
      /no token set: any local user can call this server \(it is bound to loopback 127\.0\.0\.1/,
    );
    expect(['127.0.0.1', '127.8.9.1', '::1', 'localhost'].every(isLoopback)).toBe(true);
    expect(['0.0.0.0', '::', '10.0.0.1', '192.168.1.2', 'example.com', '::ffff:8.8.8.8'].some(isLoopback)).toBe(false);
  });
});

describe('runs under load and when clients go away', () => {
  it('answers 429 with retry-after past the concurrency limit, and takes new runs again after', async () => {
    const s = await server({ maxRuns: 2 });
    const slow = JSON.stringify({ model: 'slow', messages: [{ role: 'user', content: 'x' }] });
    const running = [post(s, slow), post(s, slow)];
    await until(async () => s.runs.active === 2);
    const res = await post(s, hi);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
    expect((await res.json()).error).toMatchObject({ type: 'rate_limit_exceeded', code: 'concurrency_limit' });
    const err = await new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'x', maxRetries: 0 }).chat.completions
      .create({ model: 'echo', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect((await Promise.all(running)).map((r) => r.status)).toEqual([200, 200]);
    expect((await post(s, hi)).status).toBe(200);
    expect(s.runs.active).toBe(0);
  });

  it('interrupts the run of a client that disconnects mid-stream; its trace ends interrupted', async () => {
    const s = await server({ slowMs: 1500 });
    const res = await post(
      s,
      JSON.stringify({ model: 'slow', stream: true, messages: [{ role: 'user', content: 'x' }] }),
    );
    const runId = res.headers.get('x-qitos-run-id')!;
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('"role":"assistant"');
    await reader.cancel(); // the client goes away while the model is still thinking
    await until(async () => (await manifest(s, runId)).status !== 'running');
    expect(await manifest(s, runId)).toMatchObject({ status: 'interrupted', summary: { stopReason: 'interrupted' } });
    expect(s.runs.active).toBe(0);
  });

  it('interrupts a non-streamed run whose client disconnects, and only that run', async () => {
    const s = await server({ slowMs: 1500 });
    const body = JSON.stringify({ model: 'slow', messages: [{ role: 'user', content: 'x' }] });
    const staying = post(s, body);
    await until(async () => s.runs.active === 1);
    const stayingId = s.runs.all()[0].runId;
    const abort = new AbortController();
    const leaving = fetch(`${s.url}/v1/chat/completions`, {
      method: 'POST',
      signal: abort.signal,
      headers: { 'content-type': 'application/json' },
      body,
    }).catch((e: unknown) => e);
    await until(async () => s.runs.all().length === 2);
    const leavingId = s.runs.all().find((r) => r.runId !== stayingId)!.runId;
    abort.abort();
    expect(await leaving).toBeInstanceOf(Error);
    await until(async () => (await manifest(s, leavingId)).status !== 'running');
    expect(await manifest(s, leavingId)).toMatchObject({
      status: 'interrupted',
      summary: { stopReason: 'interrupted' },
    });
    expect((await (await staying).json()).choices[0].message.content).toBe('slow: x');
    expect((await manifest(s, stayingId)).status).toBe('completed');
  });

  it.each([
    ['runs that outlast the grace period end interrupted with their traces flushed', 3000, 50, 'interrupted'],
    ['runs that end within the grace period complete', 200, 5000, 'completed'],
  ] as const)('shuts down gracefully: %s', async (_what, slowMs, graceMs, status) => {
    const s = await testServer({ slowMs });
    const pending = post(s, JSON.stringify({ model: 'slow', messages: [{ role: 'user', content: 'x' }] }));
    await until(async () => s.runs.active === 1);
    const runId = s.runs.all()[0].runId;
    await s.close({ graceMs });
    expect(await manifest(s, runId)).toMatchObject({
      status,
      summary: { stopReason: status === 'completed' ? 'final' : 'interrupted' },
    });
    const res = await pending;
    if (status === 'completed') expect((await res.json()).choices[0].message.content).toBe('slow: x');
    else {
      expect(res.status).toBe(500);
      expect((await res.json()).error).toMatchObject({ type: 'server_error', code: 'interrupted' });
    }
  });
});
