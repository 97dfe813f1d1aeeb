import type { ServerResponse } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono, type Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { AbortedError, type HookEvent } from '../core/index.js';
import { ChatCompletionRequest, ChatRequestError, chatTask } from './chat-request.js';
import { ChunkFrames, completion, finishReason, type ChunkHead } from './chat-completion.js';
import { LiveRuns, type LiveRun } from './live-runs.js';
import { HttpError, invalidRequest } from './openai-error.js';
import { runsRoutes } from './runs-routes.js';
import { skillsRoutes } from './skills-routes.js';
import { approvalHeartbeat, approvalsRoutes } from './approvals-routes.js';
import { startRun } from './start-run.js';
import { AgentStepsText } from './agent-steps-text.js';
import { bearer } from './bearer-auth.js';
import { redactAnswers } from './redact-answers.js';
import { jsonBody, parseBody } from './request-body.js';
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
    const e = HttpError.isInstance(err)
      ? err
      : new HttpError(500, `internal error: ${(err as Error).message}`, 'server_error');
    return c.json(e.body(), e.status, e.headers);
  });
  app.notFound((c) =>
    c.json(
      new HttpError(404, `no route ${c.req.method} ${c.req.path}`, 'invalid_request_error', 'not_found').body(),
      404,
    ),
  );
  if (options.redactor) app.use('*', redactAnswers(options.redactor));
  if (options.guard) app.use('*', options.guard.middleware());
  if (options.token !== undefined) app.use('*', bearer(options.token));
  app.get('/v1/models', (c) =>
    c.json({
      object: 'list',
      data: options.agents.map((a) => ({ id: a.id, object: 'model', created: 0, owned_by: 'qitos' })),
    }),
  );
  app.post('/v1/chat/completions', (c) => chat(c, ctx));
  runsRoutes(app, ctx);
  skillsRoutes(app, ctx);
  if (options.approvals) approvalsRoutes(app, ctx, options.approvals);
  return { app, runs };
}

async function chat(c: Context, ctx: RouteContext): Promise<Response> {
  const req = parseBody(
    ChatCompletionRequest,
    await jsonBody(c, ctx.options.maxBodyBytes ?? SERVE_DEFAULTS.maxBodyBytes),
  );
  const served = ctx.options.agents.find((a) => a.id === req.model);
  if (!served)
    throw new HttpError(
      404,
      `The model "${req.model}" does not exist: this server offers ${ctx.options.agents.map((a) => `"${a.id}"`).join(', ')}`,
      'invalid_request_error',
      'model_not_found',
      'model',
    );
  let task;
  try {
    task = chatTask(req.messages, served.engine.agent.name);
  } catch (err) {
    if (ChatRequestError.isInstance(err)) throw invalidRequest(err.message, err.param);
    throw err;
  }
  const maxRuns = ctx.options.maxRuns ?? SERVE_DEFAULTS.maxRuns;
  if (!ctx.runs.reserve(maxRuns))
    throw new HttpError(
      429,
      `the server is running ${maxRuns} runs, its limit; retry shortly`,
      'rate_limit_exceeded',
      'concurrency_limit',
      null,
      { 'retry-after': '1' },
    );
  const run = await startRun(served.engine, task, ctx.runs);
  abortOnDisconnect(c, run);
  const head: ChunkHead = { id: `chatcmpl-${run.runId}`, created: Math.floor(Date.now() / 1000), model: served.id };
  c.header('x-qitos-run-id', run.runId);
  const outgoing = nodeResponse(c);
  const heartbeatMs = ctx.options.heartbeatMs ?? 15_000;
  if (!req.stream) {
    // While the run waits for an approval, the response is started (200, JSON) and a space is sent every
    // heartbeat: JSON allows whitespace before the value, so clients (the openai SDK too) parse the body as usual.
    let started = false;
    const stop = approvalHeartbeat(ctx.options.approvals, run.runId, heartbeatMs, () => {
      if (!outgoing || outgoing.destroyed) return;
      if (!started) {
        outgoing.writeHead(200, { 'content-type': 'application/json', 'x-qitos-run-id': run.runId });
        started = true;
      }
      return writeOrDrain(outgoing, ' ');
    });
    const steps = new AgentStepsText();
    let reasoning = '';
    try {
      for await (const e of run.follow()) {
        if (e.type !== 'result') reasoning += steps.add(e);
        else {
          stop();
          const r = e.result;
          const finish = finishReason(r.stopReason);
          if (started && outgoing) {
            // The status is sent: a failed run's error object comes as the body (the SDK returns it as is).
            const body =
              finish === 'error'
                ? runFailed(r.stopReason, r.stopMessage, run.runId).body()
                : completion(head, r.finalResult ?? '', reasoning.trim(), finish, r.usage);
            if (!outgoing.destroyed) outgoing.end(JSON.stringify(body));
            return RESPONSE_ALREADY_SENT;
          }
          c.header('x-qitos-stop-reason', r.stopReason);
          if (finish === 'error') throw runFailed(r.stopReason, r.stopMessage, run.runId);
          return c.json(completion(head, r.finalResult ?? '', reasoning.trim(), finish, r.usage));
        }
      }
    } finally {
      stop();
    }
  }
  const withUsage = req.stream_options?.include_usage === true;
  const frames = new ChunkFrames(head, withUsage);
  const comment = (ids: string[]) => `: waiting for approval ${ids.join(', ')}\n\n`;
  if (!outgoing) {
    return streamSSE(c, async (sse) => {
      const stop = approvalHeartbeat(ctx.options.approvals, run.runId, heartbeatMs, (ids) => sse.write(comment(ids)));
      await sseFrames(frames, run, withUsage, (text) => sse.write(text)).finally(stop);
    });
  }
  // On Node, the frames go straight to the socket, one write per batch of events: no web stream between.
  outgoing.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-qitos-run-id': run.runId,
  });
  const stop = approvalHeartbeat(ctx.options.approvals, run.runId, heartbeatMs, (ids) =>
    writeOrDrain(outgoing, comment(ids)),
  );
  await sseFrames(frames, run, withUsage, (text, last) =>
    last ? void (outgoing.destroyed || outgoing.end(text)) : writeOrDrain(outgoing, text),
  ).finally(stop);
  if (!outgoing.writableEnded && !outgoing.destroyed) outgoing.end();
  return RESPONSE_ALREADY_SENT;
}

/**
 * The SSE frames of a streamed completion, written with `write` once per batch of the run's events: the role,
 * the agent's work as `reasoning_content`, then the answer, the finish, the usage when asked for, and `[DONE]`
 * (`last` is true for the write that holds them).
 */
async function sseFrames(
  frames: ChunkFrames,
  run: LiveRun,
  withUsage: boolean,
  write: (text: string, last: boolean) => Promise<unknown> | void,
): Promise<void> {
  let out = frames.delta({ role: 'assistant', content: '' });
  const steps = new AgentStepsText();
  for await (const batch of run.batches()) {
    const text = batch.map((e) => (e.type === 'approval' ? approvalText(e, run.runId) : steps.add(e))).join('');
    if (text) out += frames.delta({ reasoning_content: text });
    const end = batch.at(-1);
    if (end?.type === 'result') {
      const r = end.result;
      const finish = finishReason(r.stopReason);
      // An OpenAI stream reports a failure as a chunk holding `error` (the SDK throws it as an APIError).
      if (finish === 'error') out += frame(runFailed(r.stopReason, r.stopMessage, run.runId).body());
      else {
        if (r.finalResult) out += frames.delta({ content: r.finalResult });
        out += frames.delta({}, finish);
        if (withUsage) out += frames.usage(r.usage);
        out += 'data: [DONE]\n\n';
      }
    }
    // the last frames end the response in the same write (one syscall less per request)
    if (out) await write(out, end?.type === 'result');
    out = '';
  }
}

/** A permission ask as the chat shows it: what waits, and where to answer it. */
function approvalText(e: Extract<HookEvent, { type: 'approval' }>, runId: string): string {
  if (e.status === 'answered') return `\n[approval ${e.request.id}: ${e.reply?.decision ?? 'reject'}]\n`;
  return `\n[waiting for approval ${e.request.id}: ${e.request.title} — POST /v1/runs/${runId}/approvals/${e.request.id}]\n`;
}

/** One SSE frame of a JSON value. */
function frame(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/** The Node response under the app when it runs on @hono/node-server (undefined on another runtime). */
function nodeResponse(c: Context): ServerResponse | undefined {
  return (c.env as Partial<HttpBindings> | undefined)?.outgoing as ServerResponse | undefined;
}

/** Writes, and waits for the socket to drain when its buffer is full; a closed connection takes nothing more. */
function writeOrDrain(res: ServerResponse, text: string): Promise<void> | void {
  if (res.destroyed || res.writableEnded) return;
  if (res.write(text)) return;
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Ends the run `interrupted` when the client goes away before its response was sent (also while the run was starting). */
function abortOnDisconnect(c: Context, run: LiveRun): void {
  const gone = () => run.abort(new AbortedError('the client disconnected'));
  const res = nodeResponse(c);
  if (res) {
    if (res.destroyed && !res.writableFinished) gone();
    else res.once('close', () => res.writableFinished || gone());
    return;
  }
  const signal = c.req.raw.signal;
  if (signal.aborted) gone();
  else signal.addEventListener('abort', gone, { once: true });
}

function runFailed(stopReason: string, message: string, runId: string): HttpError {
  return new HttpError(500, `the run ended ${stopReason}: ${message} (trace ${runId})`, 'server_error', stopReason);
}
