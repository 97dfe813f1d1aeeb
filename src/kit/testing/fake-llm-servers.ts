// Its declarations name Node's types: the reference lets a consumer whose tsconfig lacks `types: ["node"]` find them.
/// <reference types="node" preserve="true" />
/**
 * Fake LLM servers on 127.0.0.1 that speak the real wire protocols, for tests and benchmarks:
 * OpenAI chat completions (SSE `data: {...}` frames, then `data: [DONE]`) and Anthropic messages (SSE frames
 * that each carry an `event:` line). Drive them through the real SDKs.
 *
 *   const srv = await startFakeOpenAI([{ text: 'hi' }, { toolCalls: [{ name: 'add', arguments: '{"a":1}' }] }]);
 *   const model = createModel('openai:gpt-4o-mini', { baseURL: srv.url, apiKey: 'k' });
 *   ... srv.requests[0].body.messages ...
 *   await srv.close();
 *
 * A script is an array (one reply per request, in order) or a function of the request (for servers that must
 * answer forever, e.g. benchmarks). Each reply is a scripted completion, raw frames, or a plain HTTP error.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the server received; `body` is the parsed JSON body. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** How a reply is delivered (any reply kind may carry these). */
export interface Delivery {
  /** Wait this long before answering (headers included). */
  delayMs?: number;
  /** Wait this long between stream frames. */
  chunkDelayMs?: number;
  /** Destroy the socket after this many frames (a stream cut mid-way). */
  cutAfter?: number;
  /** Stop sending after this many frames and keep the connection open until the client goes away. */
  hangAfter?: number;
}

/** A plain HTTP reply (errors): `body` is sent as JSON unless it is a string. */
export interface HttpReply extends Delivery {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * Raw stream frames, sent as they are (OpenAI: data objects, or `{ sse }` for a verbatim frame such as
 * `event: error` lines; Anthropic: `{event, data}`).
 */
export interface RawFrames<F> extends Delivery {
  frames: F[];
}

/** A scripted OpenAI chat completion, streamed in small chunks. */
export interface OpenAIScript extends Delivery {
  text?: string;
  /** Streamed as `reasoning_content` deltas (DeepSeek / GLM / Qwen style) before the text. */
  reasoning?: string;
  toolCalls?: Array<{ id?: string; name: string; arguments: string }>;
  /** Usage of the final chunk (`false`: send none). Default: counts derived from the text lengths. */
  usage?: Record<string, unknown> | false;
  /** Default `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: string;
  /** Characters per delta (default 3): small, so tests see many chunks. */
  chunkSize?: number;
}

/** A scripted Anthropic message, streamed in small deltas. */
export interface AnthropicScript extends Delivery {
  thinking?: { text: string; signature: string };
  redactedThinking?: string;
  text?: string;
  toolUses?: Array<{ id?: string; name: string; input: string }>;
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    cache_read_input_tokens?: number;
    cache_creation_input_tokens?: number;
    thinking_tokens?: number;
  };
  /** Default `tool_use` when there are tool uses, else `end_turn`. */
  stopReason?: string;
  chunkSize?: number;
}

/** Anthropic SSE frame. */
export interface AnthropicFrame {
  event: string;
  data: unknown;
}

export type OpenAIReply = OpenAIScript | RawFrames<unknown> | HttpReply;
export type AnthropicReply = AnthropicScript | RawFrames<AnthropicFrame> | HttpReply;
export type Script<R> = R[] | ((request: RecordedRequest, index: number) => R | Promise<R>);

/** A running fake server. */
export interface FakeServer {
  /** Base URL to give the SDK: `http://127.0.0.1:<port>/v1`. */
  url: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Server-wide options. */
export interface FakeServerOptions {
  /** Delay before every reply (e.g. 50 ms for a benchmark's "model latency"), added to a reply's own delay. */
  delayMs?: number;
  /** Keep request bodies in `requests` (default true; long benchmarks turn it off). */
  record?: boolean;
}

/** Starts a fake OpenAI chat-completions server (`POST <url>/chat/completions`). */
export function startFakeOpenAI(script: Script<OpenAIReply>, options: FakeServerOptions = {}): Promise<FakeServer> {
  return startServer('/v1/chat/completions', script, options, (reply, res) => {
    const frames = 'frames' in reply ? reply.frames : openAIChunks(reply as OpenAIScript);
    const sse = (f: unknown) =>
      f && typeof f === 'object' && 'sse' in f ? `${(f as { sse: string }).sse}\n\n` : `data: ${JSON.stringify(f)}\n\n`;
    return stream(res, [...frames.map(sse), 'data: [DONE]\n\n'], reply);
  });
}

/** Starts a fake Anthropic messages server (`POST <url>/messages`; give the SDK the url without `/v1`). */
export async function startFakeAnthropic(
  script: Script<AnthropicReply>,
  options: FakeServerOptions = {},
): Promise<FakeServer> {
  const srv = await startServer('/v1/messages', script, options, (reply, res) => {
    const frames = 'frames' in reply ? reply.frames : anthropicEvents(reply as AnthropicScript);
    return stream(
      res,
      frames.map((f) => `event: ${f.event}\ndata: ${JSON.stringify(f.data)}\n\n`),
      reply,
    );
  });
  // The Anthropic SDK appends /v1 itself.
  return { ...srv, url: srv.url.replace(/\/v1$/, '') };
}

/** A scripted `/v1/embeddings` answer: the vectors (in input order), optionally sent in another order. */
export interface EmbeddingsScript extends Delivery {
  vectors: number[][];
  /** The order the `data` items are sent in (indexes into `vectors`); each keeps its `index`. */
  order?: number[];
}

/** Starts a fake OpenAI embeddings server (`POST <url>/embeddings`), answering with float vectors. */
export function startFakeEmbeddings(
  script: Script<EmbeddingsScript | HttpReply>,
  options: FakeServerOptions = {},
): Promise<FakeServer> {
  return startServer('/v1/embeddings', script, options, async (reply, res) => {
    const r = reply as EmbeddingsScript;
    const order = r.order ?? r.vectors.map((_, i) => i);
    sendJson(res, 200, {
      object: 'list',
      model: 'fake-embedder',
      data: order.map((i) => ({ object: 'embedding', index: i, embedding: r.vectors[i] })),
      usage: { prompt_tokens: 1, total_tokens: 1 },
    });
  });
}

/** The chunks of a scripted OpenAI completion: role, reasoning, text, tool-call deltas split small, finish, usage. */
export function openAIChunks(s: OpenAIScript): unknown[] {
  const size = s.chunkSize ?? 3;
  const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'fake-model' };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const out: unknown[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of split(s.reasoning, size)) out.push(chunk({ reasoning_content: piece }));
  for (const piece of split(s.text, size)) out.push(chunk({ content: piece }));
  for (const [index, call] of (s.toolCalls ?? []).entries()) {
    const id = call.id ?? `call_${index}`;
    out.push(chunk({ tool_calls: [{ index, id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of split(call.arguments, size))
      out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  }
  out.push(chunk({}, s.finishReason ?? (s.toolCalls?.length ? 'tool_calls' : 'stop')));
  if (s.usage !== false) {
    const completion = Math.ceil(((s.text?.length ?? 0) + (s.reasoning?.length ?? 0)) / 4);
    out.push({
      ...base,
      choices: [],
      usage: s.usage ?? { prompt_tokens: 10, completion_tokens: completion, total_tokens: 10 + completion },
    });
  }
  return out;
}

/** The events of a scripted Anthropic message: message_start, blocks (start, deltas, stop), message_delta, message_stop. */
export function anthropicEvents(s: AnthropicScript): AnthropicFrame[] {
  const size = s.chunkSize ?? 3;
  const u = s.usage ?? {};
  const out: AnthropicFrame[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: 'msg_fake',
          type: 'message',
          role: 'assistant',
          model: 'claude-fake',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: u.input_tokens ?? 10,
            output_tokens: 1,
            cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
            cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
          },
        },
      },
    },
  ];
  let index = 0;
  const block = (start: unknown, deltas: unknown[]) => {
    out.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: start } });
    for (const d of deltas)
      out.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: d } });
    out.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
    index++;
  };
  if (s.thinking) {
    const deltas: unknown[] = split(s.thinking.text, size).map((t) => ({ type: 'thinking_delta', thinking: t }));
    deltas.push({ type: 'signature_delta', signature: s.thinking.signature });
    block({ type: 'thinking', thinking: '', signature: '' }, deltas);
  }
  if (s.redactedThinking) block({ type: 'redacted_thinking', data: s.redactedThinking }, []);
  if (s.text !== undefined)
    block(
      { type: 'text', text: '', citations: null },
      split(s.text, size).map((t) => ({ type: 'text_delta', text: t })),
    );
  for (const [i, t] of (s.toolUses ?? []).entries()) {
    block(
      { type: 'tool_use', id: t.id ?? `toolu_${i}`, name: t.name, input: {} },
      split(t.input, size).map((p) => ({ type: 'input_json_delta', partial_json: p })),
    );
  }
  out.push({ event: 'ping', data: { type: 'ping' } });
  const outputTokens = u.output_tokens ?? Math.ceil(((s.text?.length ?? 0) + (s.thinking?.text.length ?? 0)) / 4);
  out.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: s.stopReason ?? (s.toolUses?.length ? 'tool_use' : 'end_turn'), stop_sequence: null },
      usage: {
        output_tokens: outputTokens,
        ...(u.thinking_tokens !== undefined ? { output_tokens_details: { thinking_tokens: u.thinking_tokens } } : {}),
      },
    },
  });
  out.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return out;
}

function split(text: string | undefined, size: number): string[] {
  if (!text) return [];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

type Streamer<R> = (reply: Exclude<R, HttpReply>, res: ServerResponse) => Promise<void>;

async function startServer<R extends Delivery>(
  route: string,
  script: Script<R>,
  options: FakeServerOptions,
  send: Streamer<R>,
): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  let count = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const path = (req.url ?? '').split('?')[0];
        if (req.method !== 'POST' || path !== route) {
          return sendJson(res, 404, {
            error: { message: `fake server: no route ${req.method} ${path} (serves POST ${route})`, type: 'not_found' },
          });
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(raw);
        } catch {
          return sendJson(res, 400, {
            error: {
              message: `fake server: request body is not JSON: ${raw.slice(0, 100)}`,
              type: 'invalid_request_error',
            },
          });
        }
        const recorded: RecordedRequest = { method: req.method, path, headers: req.headers, body };
        if (options.record !== false) requests.push(recorded);
        const index = count++;
        let reply: R | undefined;
        if (typeof script === 'function') reply = await script(recorded, index);
        else reply = script[index];
        if (!reply) {
          return sendJson(res, 500, {
            error: {
              message: `fake server: script exhausted (request #${index + 1}, script has ${(script as R[]).length} replies)`,
              type: 'server_error',
            },
          });
        }
        const delay = (options.delayMs ?? 0) + (reply.delayMs ?? 0);
        if (delay) await sleep(delay);
        if ('status' in reply) {
          const r = reply as unknown as HttpReply;
          res.writeHead(r.status, {
            'content-type': typeof r.body === 'string' ? 'text/plain' : 'application/json',
            ...r.headers,
          });
          res.end(r.body === undefined ? '' : typeof r.body === 'string' ? r.body : JSON.stringify(r.body));
          return;
        }
        await send(reply as Exclude<R, HttpReply>, res);
      })().catch((err: unknown) => {
        // A failure in the fake itself must be visible in the test, not hang it.
        if (!res.headersSent)
          sendJson(res, 500, { error: { message: `fake server failed: ${String(err)}`, type: 'server_error' } });
        else res.destroy(err instanceof Error ? err : new Error(String(err)));
      });
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

async function stream(res: ServerResponse, frames: string[], d: Delivery): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const [i, frame] of frames.entries()) {
    if (d.cutAfter !== undefined && i >= d.cutAfter) {
      await sleep(20); // let the frames already written reach the client, then cut
      res.socket?.destroy();
      return;
    }
    if (d.hangAfter !== undefined && i >= d.hangAfter) {
      await new Promise<void>((resolve) => res.on('close', () => resolve()));
      return;
    }
    if (res.destroyed) return;
    res.write(frame);
    if (d.chunkDelayMs) await sleep(d.chunkDelayMs);
  }
  res.end();
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
