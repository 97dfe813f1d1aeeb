import { z } from 'zod';
import { ModelMessage } from './model-message.js';
import { Tokens } from './usage.js';

/** A tool as a model sees it: name, description and JSON Schema of its input. */
export const ToolSpec = z.object({
  name: z.string(),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
});
export type ToolSpec = z.infer<typeof ToolSpec>;

/** Hashes of the parts of a model request, so replay can name what drifted. */
export const RequestHashes = z.object({
  request: z.string(),
  system: z.string(),
  messages: z.string(),
  tools: z.string(),
  params: z.string(),
});
export type RequestHashes = z.infer<typeof RequestHashes>;

/** One model call. */
export const ModelRequest = z.object({
  messages: z.array(ModelMessage),
  tools: z.array(ToolSpec).optional(),
  toolChoice: z.union([z.enum(['auto', 'none', 'required']), z.object({ name: z.string() })]).optional(),
  temperature: z.number().optional(),
  topP: z.number().optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  stop: z.array(z.string()).optional(),
  seed: z.number().int().optional(),
  /** Provider-specific extras passed through as-is (e.g. `reasoning_effort`, `thinking`). */
  providerOptions: z.record(z.string(), z.unknown()).optional(),
});
export type ModelRequest = z.infer<typeof ModelRequest>;

/** Why a model stopped generating, mapped from every provider onto one enum. */
export const FinishReason = z.enum(['stop', 'length', 'tool-calls', 'content-filter', 'error', 'other']);
export type FinishReason = z.infer<typeof FinishReason>;

/** A part of a model's reply. Tool-call `input` is the raw JSON text; `args` is set when it parsed. */
export const ResponsePart = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({
    type: z.literal('reasoning'),
    text: z.string(),
    signature: z.string().optional(),
    redacted: z.boolean().optional(),
    time: z.object({ start: z.number(), end: z.number() }).optional(),
  }),
  z.object({
    type: z.literal('tool-call'),
    callId: z.string(),
    name: z.string(),
    input: z.string(),
    args: z.record(z.string(), z.unknown()).optional(),
  }),
]);
export type ResponsePart = z.infer<typeof ResponsePart>;

/** The whole reply of one model call. */
export const ModelResponse = z.object({
  parts: z.array(ResponsePart),
  usage: Tokens,
  cost: z.number().nullable(),
  finishReason: FinishReason,
  modelId: z.string().optional(),
});
export type ModelResponse = z.infer<typeof ModelResponse>;

/**
 * Events a model streams while it generates. `retry` comes from the retry middleware between attempts (the
 * attempt before it produced no output), so a consumer sees why a reply is late.
 */
export const ModelStreamEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('step-start') }),
  z.object({ type: z.literal('text-delta'), delta: z.string() }),
  z.object({ type: z.literal('reasoning-start'), id: z.string() }),
  z.object({ type: z.literal('reasoning-delta'), id: z.string(), delta: z.string() }),
  z.object({ type: z.literal('reasoning-end'), id: z.string(), signature: z.string().optional() }),
  z.object({ type: z.literal('tool-input-start'), callId: z.string(), name: z.string() }),
  z.object({ type: z.literal('tool-input-delta'), callId: z.string(), delta: z.string() }),
  z.object({ type: z.literal('tool-call'), callId: z.string(), name: z.string(), input: z.string() }),
  z.object({ type: z.literal('step-finish'), finishReason: FinishReason, usage: Tokens, cost: z.number().nullable() }),
  z.object({
    type: z.literal('retry'),
    attempt: z.number().int().positive(),
    delayMs: z.number().nonnegative(),
    errorKind: z.string(),
    error: z.string(),
  }),
]);
export type ModelStreamEvent = z.infer<typeof ModelStreamEvent>;

/** What a model knows about itself (used by compaction and cost). */
export const ModelInfo = z.object({
  provider: z.string(),
  model: z.string(),
  contextWindow: z.number().int().positive().optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  /** The URL the model's requests go to (credentials and query removed), recorded so a fork can tell it moved. */
  endpoint: z.string().optional(),
});
export type ModelInfo = z.infer<typeof ModelInfo>;

/**
 * Receives a model's stream events. It may return a promise: a model that streams awaits it before it reads
 * on, so a slow consumer (`Engine.stream`) slows the model's reading instead of piling events up. Any other
 * return value is ignored.
 */
export type StreamListener = (event: ModelStreamEvent) => unknown;

/** The promise a listener returned, if it returned one (what a streaming model awaits before it goes on). */
export function pendingOf(value: unknown): PromiseLike<unknown> | undefined {
  return value !== null && typeof value === 'object' && typeof (value as PromiseLike<unknown>).then === 'function'
    ? (value as PromiseLike<unknown>)
    : undefined;
}

/** Options of one `generate` call. */
export interface GenerateOptions {
  signal?: AbortSignal;
  onEvent?: StreamListener;
  /** Hashes of this request's parts as the engine computed them (a replay model checks them for drift). */
  requestHashes?: RequestHashes;
  /** Why the call is made (`ModelCall.purpose`): a replay model serves each purpose from its own recording. */
  purpose?: string;
}

/** The one interface every provider implements. */
export interface Model {
  /** `provider:model`, as recorded in traces. */
  readonly id: string;
  readonly info?: ModelInfo;
  generate(request: ModelRequest, options?: GenerateOptions): Promise<ModelResponse>;
}
