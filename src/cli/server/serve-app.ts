import { Hono, type Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { ChatCompletionRequest, ChatRequestError, chatTask } from './chat-request.js';
import { chunk, completion, finishReason, usageChunk, type ChunkHead } from './chat-completion.js';
import { LiveRuns } from './live-runs.js';
import { HttpError, invalidRequest } from './openai-error.js';
import { runsRoutes } from './runs-routes.js';
import { skillsRoutes } from './skills-routes.js';
import { startRun } from './start-run.js';
import { bearer } from './bearer-auth.js';
import { jsonBody, jsonLimit, parseBody } from './request-body.js';
import { SERVE_DEFAULTS, type RouteContext, type ServeAppOptions } from './serve-options.js';

/** The app and the runs it has going (for shutdown). */
export interface ServeApp {
  app: Hono;
  runs: LiveRuns;
}

/**
 * The HTTP API of `qitos serve` as a Hono app: OpenAI-compatible chat completions over the given agents,
 * the runs they make (listing, manifest, live events, the HTML viewer) and the skills lifecycle. Every error is
 * OpenAI's error JSON with the matching status.
 */
export function createServeApp(options: ServeAppOptions): ServeApp {
  const ids = new Set<string>();
  for (const a of options.agents) {
    if (ids.has(a.id)) throw new Error(`two served agents share the id "${a.id}"`);
    ids.add(a.id);
  }
  const runs = new LiveRuns();
  const ctx: RouteContext = { options, runs };
  const app = new Hono();
  app.onError((err, c) => {
    const e = err instanceof HttpError ? err : new HttpError(500, `internal error: ${(err as Error).message}`, 'server_error');
    return c.json(e.body(), e.status, e.headers);
  });
  app.notFound((c) => c.json(new HttpError(404, `no route ${c.req.method} ${c.req.path}`, 'invalid_request_error', 'not_found').body(), 404));
  if (options.token !== undefined) app.use('*', bearer(options.token));
  app.get('/v1/models', (c) => c.json({ object: 'list', data: options.agents.map((a) => ({ id: a.id, object: 'model', created: 0, owned_by: 'qitos' })) }));
  app.post('/v1/chat/completions', jsonLimit(options.maxBodyBytes ?? SERVE_DEFAULTS.maxBodyBytes), (c) => chat(c, ctx));
  runsRoutes(app, ctx);
  skillsRoutes(app, ctx);
  return { app, runs };
}

async function chat(c: Context, ctx: RouteContext): Promise<Response> {
  const req = parseBody(ChatCompletionRequest, await jsonBody(c));
  const served = ctx.options.agents.find((a) => a.id === req.model);
  if (!served) throw new HttpError(404, `The model "${req.model}" does not exist: this server offers ${ctx.options.agents.map((a) => `"${a.id}"`).join(', ')}`, 'invalid_request_error', 'model_not_found', 'model');
  let task;
  try {
    task = chatTask(req.messages, served.engine.agent.name);
  } catch (err) {
    if (err instanceof ChatRequestError) throw invalidRequest(err.message, err.param);
    throw err;
  }
  const maxRuns = ctx.options.maxRuns ?? SERVE_DEFAULTS.maxRuns;
  if (!ctx.runs.reserve(maxRuns)) throw new HttpError(429, `the server is running ${maxRuns} runs, its limit; retry shortly`, 'rate_limit_exceeded', 'concurrency_limit', null, { 'retry-after': '1' });
  const run = await startRun(served.engine, task, ctx.runs, c.req.raw.signal);
  const head: ChunkHead = { id: `chatcmpl-${run.runId}`, created: Math.floor(Date.now() / 1000), model: served.id };
  c.header('x-qitos-run-id', run.runId);
  if (!req.stream) {
    let reasoning = '';
    for await (const e of run.follow()) {
      if (e.type === 'model_event') reasoning += reasoningText(e.event);
      else if (e.type === 'result') {
        const r = e.result;
        c.header('x-qitos-stop-reason', r.stopReason);
        const finish = finishReason(r.stopReason);
        if (finish === 'error') throw runFailed(r.stopReason, r.stopMessage, run.runId);
        return c.json(completion(head, r.finalResult ?? '', reasoning, finish, r.usage));
      }
    }
  }
  const withUsage = req.stream_options?.include_usage === true;
  const u = withUsage ? null : undefined;
  return streamSSE(c, async (sse) => {
    const send = (data: unknown) => sse.writeSSE({ data: JSON.stringify(data) });
    await send(chunk(head, { role: 'assistant', content: '' }, null, u));
    for await (const batch of run.batches()) {
      const text = batch.map((e) => (e.type === 'model_event' ? reasoningText(e.event) : '')).join('');
      if (text) await send(chunk(head, { reasoning_content: text }, null, u));
      const end = batch.at(-1);
      if (end?.type === 'result') {
        const r = end.result;
        const finish = finishReason(r.stopReason);
        // An OpenAI stream reports a failure as a chunk holding `error` (the SDK throws it as an APIError).
        if (finish === 'error') return void (await send(runFailed(r.stopReason, r.stopMessage, run.runId).body()));
        if (r.finalResult) await send(chunk(head, { content: r.finalResult }, null, u));
        await send(chunk(head, {}, finish, u));
        if (withUsage) await send(usageChunk(head, r.usage));
        await sse.writeSSE({ data: '[DONE]' });
      }
    }
  });
}

/** The agent's work as it streams: model text and reasoning, each tool call it makes; the answer is `content`. */
function reasoningText(event: { type: string; delta?: string; name?: string; input?: string }): string {
  if (event.type === 'text-delta' || event.type === 'reasoning-delta') return event.delta ?? '';
  if (event.type === 'tool-call') return `\n[tool call] ${event.name}(${event.input})\n`;
  if (event.type === 'step-finish') return '\n';
  return '';
}

function runFailed(stopReason: string, message: string, runId: string): HttpError {
  return new HttpError(500, `the run ended ${stopReason}: ${message} (trace ${runId})`, 'server_error', stopReason);
}
