import { z } from 'zod';
import type { ActionResult } from './action.js';
import type { CallModel } from './model-call.js';
import type { Decision } from './decision.js';
import type { State } from './state.js';

/**
 * What a critic says about a step, in the CRITIQUE phase (after REDUCE, before CHECK_STOP):
 * - `continue`: the run goes on as decided (a final answer ends it);
 * - `retry`: the step is not good enough; `feedback` goes to the model as a user message and the run goes on
 *   (a final answer does not end the run), up to the critic's `maxRetries` consecutive retries;
 * - `stop`: end the run now with `critic_stop` and `reason`.
 * `score` (any scale the critic documents) is recorded with the verdict.
 */
export const CriticVerdict = z.discriminatedUnion('action', [
  z.object({ action: z.literal('continue'), score: z.number().optional(), reason: z.string().optional() }),
  z.object({
    action: z.literal('retry'),
    feedback: z.string().min(1),
    score: z.number().optional(),
    reason: z.string().optional(),
  }),
  z.object({ action: z.literal('stop'), reason: z.string().min(1), score: z.number().optional() }),
]);
export type CriticVerdict = z.infer<typeof CriticVerdict>;

/** One critic's verdict on one step, as the step record and the viewer keep it. */
export const CritiqueRecord = z.object({
  critic: z.string(),
  verdict: CriticVerdict,
  /** True when the critic asked for a retry past its `maxRetries`: the retry was not made. */
  exhausted: z.boolean().optional(),
});
export type CritiqueRecord = z.infer<typeof CritiqueRecord>;

/** What a critic is given: the step just reduced, and a model call counted in the run's usage and budgets. */
export interface CriticContext<S extends State = State> {
  runId: string;
  step: number;
  /** The state after REDUCE (read it; a critic never changes it: its verdict is how it acts). */
  state: Readonly<S>;
  decision: Decision;
  results: readonly ActionResult[];
  /** This critic's consecutive retries before this step. */
  retries: number;
  signal: AbortSignal;
  callModel: CallModel;
}

/**
 * Judges each step after REDUCE (`EngineOptions.critics`, in order; the first `stop` or `retry` wins). A critic
 * holds no state of its own across steps or runs: what it needs is in the context. Kit: `passThroughCritic`,
 * `selfReflectionCritic`, `reactSelfReflectionCritic` (`qitos-ts/critics`).
 */
export interface Critic<S extends State = State> {
  readonly name: string;
  /** Consecutive retries allowed (default 2); past them a `retry` is recorded as exhausted and the step stands. */
  readonly maxRetries?: number;
  critique(ctx: CriticContext<S>): CriticVerdict | Promise<CriticVerdict>;
}
