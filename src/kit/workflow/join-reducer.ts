import type { BranchOutcome } from './thread-state.js';

/**
 * A custom join merge, registered by name on a WorkflowAgent: given the branches (by branch id: the variables
 * each set, or its error) and the variables before the join, it returns the value of the join's `output` variable.
 */
export type JoinReducer = (
  branches: Readonly<Record<string, BranchOutcome>>,
  vars: Readonly<Record<string, unknown>>,
) => unknown;
