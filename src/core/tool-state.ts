import { z } from 'zod';

const Args = z.record(z.string(), z.unknown());

/** A file or binary attachment produced by a tool. */
export const Attachment = z.object({ mime: z.string(), url: z.string(), filename: z.string().optional() });
export type Attachment = z.infer<typeof Attachment>;

/**
 * The life of one tool call: pending -> running -> completed | error.
 * Each move records its time (epoch ms). A completed output may later be compacted
 * (`time.compacted`): the output stays in the trace, the model sees a placeholder.
 */
export const ToolState = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('pending'),
    input: Args,
    raw: z.string().optional(),
    time: z.object({ created: z.number() }),
  }),
  z.object({
    status: z.literal('running'),
    input: Args,
    title: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    time: z.object({ created: z.number(), start: z.number() }),
  }),
  z.object({
    status: z.literal('completed'),
    input: Args,
    output: z.string(),
    title: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    attachments: z.array(Attachment).optional(),
    time: z.object({ created: z.number(), start: z.number(), end: z.number(), compacted: z.number().optional() }),
  }),
  z.object({
    status: z.literal('error'),
    input: Args,
    error: z.string(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    time: z.object({ created: z.number(), start: z.number(), end: z.number() }),
  }),
]);
export type ToolState = z.infer<typeof ToolState>;
export type ToolStatus = ToolState['status'];
