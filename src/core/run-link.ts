import { z } from 'zod';
import { Budget } from './task.js';

/**
 * How a run descends from another, as recorded in its manifest: a sub-run of the `task` tool (`subtask`), a
 * `replay`, or a `fork` after step `atStep`. `depth` counts sub-run nesting (1 for a sub-agent of a top-level
 * run); `budget` is the share of the parent's budget the run was given.
 */
export const RunParent = z.object({
  runId: z.string(),
  /** The parent's trace folder (null when the parent was not traced). */
  path: z.string().nullable(),
  kind: z.enum(['replay', 'fork', 'subtask']),
  atStep: z.number().optional(),
  depth: z.number().int().nonnegative().optional(),
  budget: Budget.optional(),
});
export type RunParent = z.infer<typeof RunParent>;
