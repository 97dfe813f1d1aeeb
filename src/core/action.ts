import { z } from 'zod';
import { ToolState } from './tool-state.js';

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
});
export type ActionResult = z.infer<typeof ActionResult>;
