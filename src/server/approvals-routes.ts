import type { Hono } from 'hono';
import { z } from 'zod';
import type { ApprovalReply } from '../core/index.js';
import type { ApprovalQueue } from '../engine/approval-queue.js';
import { HttpError } from './openai-error.js';
import { jsonBody, parseBody } from './request-body.js';
import { SERVE_DEFAULTS, type RouteContext } from './serve-options.js';

/** The body of an answer: allow (once), always (this input, for the rest of the run), deny, with a message the agent sees. */
const Answer = z.strictObject({
  decision: z.enum(['allow', 'always', 'deny']),
  message: z.string().max(4000).optional(),
});

/**
 * GET /v1/runs/:id/approvals (the run's asks waiting for an answer) and POST /v1/runs/:id/approvals/:approvalId
 * (`{ "decision": "allow" | "always" | "deny", "message"? }`). The asks come from the served engines' permission
 * rules (docs/permissions.md); each also shows in the run's event stream as an `approval` event.
 */
export function approvalsRoutes(app: Hono, { options, runs }: RouteContext, approvals: ApprovalQueue): void {
  const liveRun = (id: string) => {
    if (!runs.get(id))
      throw new HttpError(
        404,
        `no live run ${JSON.stringify(id.slice(0, 80))}: approvals exist only while a run runs`,
        'invalid_request_error',
        'run_not_found',
        'id',
      );
  };
  app.get('/v1/runs/:id/approvals', (c) => {
    const id = c.req.param('id');
    liveRun(id);
    return c.json({ object: 'list', data: approvals.pending().filter((r) => r.runId === id) });
  });
  app.post('/v1/runs/:id/approvals/:approvalId', async (c) => {
    const id = c.req.param('id');
    const approvalId = c.req.param('approvalId');
    liveRun(id);
    const body = parseBody(Answer, await jsonBody(c, options.maxBodyBytes ?? SERVE_DEFAULTS.maxBodyBytes));
    if (!approvals.pending().some((r) => r.id === approvalId && r.runId === id)) {
      throw new HttpError(
        404,
        `run ${id} has no approval ${JSON.stringify(approvalId.slice(0, 80))} waiting (answered, timed out, or never asked)`,
        'invalid_request_error',
        'approval_not_found',
        'approvalId',
      );
    }
    const reply: ApprovalReply = {
      decision: body.decision === 'allow' ? 'once' : body.decision === 'deny' ? 'reject' : 'always',
      by: 'server',
      ...(body.message ? { message: body.message } : {}),
    };
    approvals.answer(approvalId, reply);
    return c.json({ id: approvalId, runId: id, decision: body.decision });
  });
}

/**
 * Keeps a chat completion alive while its run waits for an approval (clients and proxies drop idle connections):
 * every `everyMs`, `tick` gets the ids of the run's waiting asks, when there are any, and writes something (an SSE
 * comment in a stream, whitespace before a JSON body). Returns the stop.
 */
export function approvalHeartbeat(
  approvals: ApprovalQueue | undefined,
  runId: string,
  everyMs: number,
  tick: (waiting: string[]) => unknown,
): () => void {
  if (!approvals) return () => undefined;
  const timer = setInterval(() => {
    const waiting = approvals.pending().filter((r) => r.runId === runId);
    if (waiting.length) void tick(waiting.map((w) => w.id));
  }, everyMs);
  timer.unref?.();
  return () => clearInterval(timer);
}
