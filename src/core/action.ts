import { z } from 'zod';
import { ToolState } from './tool-state.js';
import { FilePart, SubtaskPart } from './message.js';
import { PermissionRecord } from './permission.js';

/** A part a tool call adds to the history right after its own tool part (a sub-run it started, a file it made). */
export const ResultPart = z.discriminatedUnion('type', [SubtaskPart.omit({ id: true }), FilePart.omit({ id: true })]);
export type ResultPart = z.infer<typeof ResultPart>;

/** One tool call the agent wants executed. */
export const Action = z.object({
  id: z.string(),
  name: z.string().min(1),
  args: z.record(z.string(), z.unknown()),
  timeoutMs: z.number().int().positive().optional(),
});
export type Action = z.infer<typeof Action>;

/** The outcome of one Action, in the order the actions were given. */
export const ActionResult = z.object({
  actionId: z.string(),
  name: z.string(),
  status: z.enum(['success', 'error', 'skipped']),
  output: z.unknown(),
  error: z.string().optional(),
  latencyMs: z.number().nonnegative(),
  state: ToolState,
  parts: z.array(ResultPart).optional(),
  /** The permission decision the call went through, when the run has permission rules (docs/permissions.md). */
  permission: PermissionRecord.optional(),
});
export type ActionResult = z.infer<typeof ActionResult>;
