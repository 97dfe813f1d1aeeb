import { z } from 'zod';

/** Provider-neutral content parts. */
export const ModelTextPart = z.object({ type: z.literal('text'), text: z.string() });
export const ModelReasoningPart = z.object({
  type: z.literal('reasoning'),
  text: z.string(),
  signature: z.string().optional(),
  redacted: z.boolean().optional(),
});
export const ModelToolCallPart = z.object({
  type: z.literal('tool-call'),
  callId: z.string(),
  name: z.string(),
  args: z.record(z.string(), z.unknown()),
});
/**
 * A file in a message. `bestEffort` marks a file the model did not ask for by name (a tool's attachment): a
 * provider that cannot send its type replaces it with a short note instead of failing the request.
 */
export const ModelFilePart = z.object({
  type: z.literal('file'),
  mime: z.string(),
  url: z.string(),
  filename: z.string().optional(),
  bestEffort: z.boolean().optional(),
});
/** A tool's result; `attachments` are the files it returned (images, audio, binary resources), each `bestEffort`. */
export const ModelToolResultPart = z.object({
  type: z.literal('tool-result'),
  callId: z.string(),
  name: z.string(),
  output: z.string(),
  isError: z.boolean(),
  attachments: z.array(ModelFilePart).optional(),
});

/** What a provider receives: a provider-neutral message list (`toModelMessages` builds it from history). */
export const ModelMessage = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.array(z.discriminatedUnion('type', [ModelTextPart, ModelFilePart])) }),
  z.object({
    role: z.literal('assistant'),
    content: z.array(z.discriminatedUnion('type', [ModelTextPart, ModelReasoningPart, ModelToolCallPart])),
  }),
  z.object({ role: z.literal('tool'), content: z.array(ModelToolResultPart) }),
]);
export type ModelMessage = z.infer<typeof ModelMessage>;
export type ModelToolCallPart = z.infer<typeof ModelToolCallPart>;
export type ModelToolResultPart = z.infer<typeof ModelToolResultPart>;
export type ModelFilePart = z.infer<typeof ModelFilePart>;
