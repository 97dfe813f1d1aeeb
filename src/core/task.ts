import { z } from 'zod';

/** Resource limits for one run. Every field is optional; an absent field means no limit. */
export const Budget = z.object({
  maxSteps: z.number().int().positive().optional(),
  maxSeconds: z.number().positive().optional(),
  maxTokens: z.number().int().positive().optional(),
  maxCost: z.number().positive().optional(),
});
export type Budget = z.infer<typeof Budget>;

/** The tightest of several budgets, field by field (an absent field is no limit). */
export function tightestBudget(...budgets: Array<Budget | undefined>): Budget {
  const out: Budget = {};
  for (const b of budgets) {
    if (!b) continue;
    for (const k of ['maxSteps', 'maxSeconds', 'maxTokens', 'maxCost'] as const) {
      const v = b[k];
      if (v !== undefined && (out[k] === undefined || v < out[k]!)) out[k] = v;
    }
  }
  return out;
}

/** A unit of work given to `Engine.run`. */
export const Task = z.object({
  id: z.string().min(1),
  objective: z.string().min(1, 'objective must not be empty'),
  inputs: z.record(z.string(), z.unknown()).default({}),
  resources: z.record(z.string(), z.unknown()).default({}),
  budget: Budget.default({}),
  successCriteria: z.array(z.string()).default([]),
  metadata: z.record(z.string(), z.unknown()).default({}),
});
export type Task = z.infer<typeof Task>;
export type TaskInput = z.input<typeof Task>;
