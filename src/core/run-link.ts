import { z } from 'zod';
import { Budget } from './task.js';
import type { Tokens } from './usage.js';
import type { TraceTap } from './trace-tap.js';

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

/**
 * The typed link from a run to its parent (`EngineOptions.parent`): what the manifest records, plus `spend`,
 * through which every model call of the run also counts in the parent's usage (tokens, cost, model calls) and
 * budgets.
 */
export interface ParentLink extends RunParent {
  spend?(tokens: Tokens, cost: number | null, modelCalls: number): void;
  /** The parent's trace tap (`TraceOptions.tap`): a traced sub-run's records go to it too, unless its own options set one. */
  tap?: TraceTap;
}
