import { z } from 'zod';

/** The closed set of ways a run can end. Every run ends with exactly one. */
export const StopReason = z.enum([
  'final',
  'agent_condition',
  'env_terminal',
  'budget_steps',
  'budget_time',
  'budget_tokens',
  'budget_cost',
  'doom_loop',
  'context_overflow',
  'critic_stop',
  'interrupted',
  'task_invalid',
  'env_capability_mismatch',
  'unrecoverable_error',
]);
export type StopReason = z.infer<typeof StopReason>;

/** A stop reason with a human-readable explanation (what policies and budgets return). */
export const StopVerdict = z.object({ reason: StopReason, message: z.string() });
export type StopVerdict = z.infer<typeof StopVerdict>;
