import { z } from 'zod';
import { Phase } from './phase.js';
import { ModelResponse, ModelStreamEvent } from './model.js';
import { ToolState } from './tool-state.js';
import { StopReason } from './stop-reason.js';
import { CriticVerdict } from './critic.js';
import { ApprovalReply, ApprovalRequest, PermissionRecord } from './permission.js';

/** Every event the engine emits to hooks. Hooks observe the loop; they never change it. */
export const HookEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('run_start'), runId: z.string(), taskId: z.string(), traceDir: z.string().nullable() }),
  z.object({
    type: z.literal('run_end'),
    runId: z.string(),
    stopReason: StopReason,
    finalResult: z.string().nullable(),
    steps: z.number(),
  }),
  z.object({ type: z.literal('phase_start'), step: z.number(), phase: Phase }),
  z.object({ type: z.literal('phase_end'), step: z.number(), phase: Phase, durationMs: z.number() }),
  z.object({ type: z.literal('model_event'), step: z.number(), event: ModelStreamEvent }),
  z.object({ type: z.literal('tool_state'), step: z.number(), callId: z.string(), tool: z.string(), state: ToolState }),
  /** `at` and `stack`: where a bug was thrown (see Failure). */
  z.object({
    type: z.literal('recover'),
    step: z.number(),
    kind: z.string(),
    message: z.string(),
    recoveries: z.number(),
    fatal: z.boolean(),
    at: z.string().optional(),
    stack: z.string().optional(),
  }),
  z.object({
    type: z.literal('policy'),
    step: z.number(),
    policy: z.string(),
    event: z.string(),
    data: z.record(z.string(), z.unknown()),
  }),
  z.object({ type: z.literal('hook_error'), step: z.number(), event: z.string(), message: z.string() }),
  /** A model call made inside the run besides the step's own (`callModel`: MCP sampling, tools, memories). */
  z.object({
    type: z.literal('model_call'),
    step: z.number(),
    purpose: z.string(),
    model: z.string(),
    latencyMs: z.number(),
    attempts: z.number().int(),
    /** Hashes of the request's system prompt, messages, tool schemas and params (a replay compares them). */
    hashes: z.object({ system: z.string(), messages: z.string(), tools: z.string(), params: z.string() }).optional(),
    /** The reply (its usage counts in the run's), or the error the call ended with. */
    response: ModelResponse.optional(),
    error: z.string().optional(),
  }),
  /** A read or write of the run's memory (`EngineOptions.memory`). */
  z.object({
    type: z.literal('memory'),
    step: z.number(),
    memory: z.string(),
    op: z.enum(['reset', 'append', 'retrieve', 'summarize', 'evict']),
    data: z.record(z.string(), z.unknown()),
  }),
  /** Something an agent reported (`ctx.emit`): a workflow's LLM calls, tool calls, token usage, summaries. */
  z.object({
    type: z.literal('agent'),
    step: z.number(),
    agent: z.string(),
    event: z.string(),
    data: z.record(z.string(), z.unknown()),
  }),
  /** A critic's verdict on a step (CRITIQUE phase). */
  z.object({
    type: z.literal('critic'),
    step: z.number(),
    critic: z.string(),
    verdict: CriticVerdict,
    exhausted: z.boolean().optional(),
  }),
  /** A permission decision on a tool call (or a doom-loop ask): the rule, who decided, when. */
  z.object({
    type: z.literal('permission'),
    step: z.number(),
    callId: z.string().optional(),
    tool: z.string().optional(),
    record: PermissionRecord,
  }),
  /** A call waits for a human (`pending`), or the wait ended (`answered`, with the reply). */
  z.object({
    type: z.literal('approval'),
    step: z.number(),
    status: z.enum(['pending', 'answered']),
    request: ApprovalRequest,
    reply: ApprovalReply.optional(),
  }),
  /** A branch step's search: the candidates' scores and what was acted on. */
  z.object({
    type: z.literal('search'),
    step: z.number(),
    search: z.string(),
    scores: z.array(z.number()),
    chosen: z.object({ from: z.enum(['step', 'frontier']), index: z.number(), fromStep: z.number() }),
    frontier: z.number(),
  }),
]);
export type HookEvent = z.infer<typeof HookEvent>;
export type HookEventType = HookEvent['type'];

/** A hook: called with every event. It may return a promise; the engine does not wait for it. */
export type Hook = (event: HookEvent) => void | Promise<void>;
