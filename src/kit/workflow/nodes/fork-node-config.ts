import { z } from 'zod';
import { defineNodeConfig, type NodeConfigValue } from './define-node-config.js';
import { ErrorPolicy, commonFields } from './node-fields.js';

/**
 * Fields of a fork marker: each outgoing edge starts a branch, run as a concurrent child thread (a linked child
 * run) until it reaches the join of this fork.
 */
export const ForkNodeFields = z.object({
  ...commonFields,
  /** What a failed branch does: fail the workflow, be left out of the join (`continue`), or be re-run (`retry`). */
  onError: ErrorPolicy.default({ mode: 'fail', retries: 0 }),
  /** Branches running at once (default: all). */
  concurrency: z.number().int().positive().optional(),
  /**
   * How the branches share what is left of the run's token and cost budget: `split` gives each branch an equal
   * part (together they cannot overspend it; a branch's retries share its part), `shared` lets each branch use
   * all of it (the run still stops after the fork once the total is over).
   */
  budget: z.enum(['split', 'shared']).default('split'),
});

/** A fork marker's configuration (immutable value object). */
export const ForkNodeConfig = defineNodeConfig('fork', ForkNodeFields);
export type ForkNodeConfig = NodeConfigValue<'fork', z.output<typeof ForkNodeFields>>;
