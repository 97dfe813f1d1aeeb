import { z } from 'zod';
import { ToolState, Attachment } from './tool-state.js';
import { Tokens } from './usage.js';

const base = { id: z.string() };
const Meta = z.record(z.string(), z.unknown()).optional();

/** Plain text (from the model or the user). `synthetic` marks text the kernel wrote, e.g. a recovery note. */
export const TextPart = z.object({
  ...base,
  type: z.literal('text'),
  text: z.string(),
  synthetic: z.boolean().optional(),
  time: z.object({ start: z.number(), end: z.number().optional() }).optional(),
  metadata: Meta,
});
/** Model reasoning, with the time it started and ended streaming. `signature` is passed back where a provider needs it. */
export const ReasoningPart = z.object({
  ...base,
  type: z.literal('reasoning'),
  text: z.string(),
  signature: z.string().optional(),
  redacted: z.boolean().optional(),
  time: z.object({ start: z.number(), end: z.number().optional() }),
  metadata: Meta,
});
/**
 * One tool call and its state. `origin` says whether the model called it natively (function calling) or
 * a text parser extracted it from the reply: the two render differently for the provider.
 */
export const ToolPart = z.object({
  ...base,
  type: z.literal('tool'),
  callID: z.string(),
  tool: z.string(),
  origin: z.enum(['native', 'parsed']),
  state: ToolState,
  metadata: Meta,
});
/** Where one model reply starts in an assistant message. */
export const StepStartPart = z.object({ ...base, type: z.literal('step-start') });
/** Where one model reply ends: why it stopped, its tokens and cost. */
export const StepFinishPart = z.object({
  ...base,
  type: z.literal('step-finish'),
  reason: z.string(),
  tokens: Tokens,
  cost: z.number().nullable(),
});
/** A file or image (a data: or file: URL) in a message. */
export const FilePart = z.object({
  ...base,
  type: z.literal('file'),
  mime: z.string(),
  url: z.string(),
  filename: z.string().optional(),
  source: z.record(z.string(), z.unknown()).optional(),
});
/** A sub-run a tool call started (the `task` tool): what it was asked, and where its own trace is. */
export const SubtaskPart = z.object({
  ...base,
  type: z.literal('subtask'),
  prompt: z.string(),
  description: z.string(),
  agent: z.string(),
  model: z.string().optional(),
  runId: z.string().optional(),
  trace: z.string().optional(),
});
/** A failed attempt of the model call the message holds the reply of (written by the retry middleware's `retry` event). */
export const RetryPart = z.object({
  ...base,
  type: z.literal('retry'),
  attempt: z.number().int(),
  error: z.string(),
  errorKind: z.string().optional(),
  delayMs: z.number().optional(),
  time: z.object({ created: z.number() }),
});
/** Marks a compaction summary (the message replaces older history). */
export const CompactionPart = z.object({
  ...base,
  type: z.literal('compaction'),
  auto: z.boolean(),
  overflow: z.boolean().optional(),
});

/**
 * A part of a kind the user registered (the tool system requirements' custom parts): `kind` names it, `data` is checked against the schema
 * registered for it (`CustomPartKinds`, passed to the engine), which also says how providers render it.
 */
export const CustomPart = z.object({
  ...base,
  type: z.literal('custom'),
  kind: z.string().regex(/^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/, 'a custom part kind is 1-64 characters of [A-Za-z0-9_.:-]'),
  data: z.unknown(),
});

/** Every part kind a message can hold (opencode's message-v2 shape, without the kinds nothing here writes). */
export const Part = z.discriminatedUnion('type', [
  CustomPart,
  TextPart,
  ReasoningPart,
  ToolPart,
  StepStartPart,
  StepFinishPart,
  FilePart,
  SubtaskPart,
  RetryPart,
  CompactionPart,
]);
export type Part = z.infer<typeof Part>;
export type TextPart = z.infer<typeof TextPart>;
export type ReasoningPart = z.infer<typeof ReasoningPart>;
export type ToolPart = z.infer<typeof ToolPart>;
export type StepFinishPart = z.infer<typeof StepFinishPart>;
export type CompactionPart = z.infer<typeof CompactionPart>;
export type FilePart = z.infer<typeof FilePart>;
export type SubtaskPart = z.infer<typeof SubtaskPart>;
export type RetryPart = z.infer<typeof RetryPart>;
export type CustomPart = z.infer<typeof CustomPart>;

/** Who a user message was addressed to and how (agent, model, system, tools, variant); `summary` only on compaction summaries. */
export const UserInfo = z.object({
  id: z.string(),
  role: z.literal('user'),
  time: z.object({ created: z.number() }),
  agent: z.string().optional(),
  model: z.string().optional(),
  system: z.string().optional(),
  tools: z.record(z.string(), z.boolean()).optional(),
  variant: z.string().optional(),
  summary: z.object({ title: z.string().optional(), body: z.string().optional() }).optional(),
});
/** What one model step produced: tokens, cost, where it ran, when, and any error. */
export const AssistantInfo = z.object({
  id: z.string(),
  role: z.literal('assistant'),
  time: z.object({ created: z.number(), completed: z.number().optional() }),
  model: z.string().optional(),
  tokens: Tokens,
  cost: z.number().nullable(),
  /**
   * Where the step ran: `root`, the env's workspace (its file ops' root, as the env sees it), and `cwd`, where its
   * commands run by default (the root). Absent when the env has no file ops.
   */
  path: z.object({ cwd: z.string(), root: z.string() }).optional(),
  error: z.object({ kind: z.string(), message: z.string() }).optional(),
  summary: z.boolean().optional(),
  finish: z.string().optional(),
});
export type UserInfo = z.infer<typeof UserInfo>;
export type AssistantInfo = z.infer<typeof AssistantInfo>;

/** A message of the history: its info and its ordered parts. */
export const Message = z.discriminatedUnion('role', [
  z.object({ role: z.literal('user'), info: UserInfo, parts: z.array(Part) }),
  z.object({ role: z.literal('assistant'), info: AssistantInfo, parts: z.array(Part) }),
]);
export type Message = z.infer<typeof Message>;
export type UserMessage = Extract<Message, { role: 'user' }>;
export type AssistantMessage = Extract<Message, { role: 'assistant' }>;
export { Attachment };
