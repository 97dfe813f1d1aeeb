import { z } from 'zod';
import { Action } from './action.js';

const ActDecision = z.object({
  mode: z.literal('act'),
  actions: z.array(Action).min(1),
  rationale: z.string().optional(),
});
const FinalDecision = z.object({ mode: z.literal('final'), answer: z.string(), rationale: z.string().optional() });
const WaitDecision = z.object({ mode: z.literal('wait'), rationale: z.string().optional() });

/** A decision that can be carried out directly (everything but `branch`). */
export const SimpleDecision = z.discriminatedUnion('mode', [ActDecision, FinalDecision, WaitDecision]);
export type SimpleDecision = z.infer<typeof SimpleDecision>;

/**
 * What the agent decided this step: run actions, give the final answer, wait (no action this step),
 * or `branch`: several candidates from which a search policy (`Engine` option `selectBranch`) picks one.
 */
export const Decision = z.discriminatedUnion('mode', [
  ActDecision,
  FinalDecision,
  WaitDecision,
  z.object({
    mode: z.literal('branch'),
    candidates: z.array(SimpleDecision).min(1),
    /** The agent's own scores of the candidates (a search's default scorer uses them). */
    scores: z.array(z.number()).optional(),
    rationale: z.string().optional(),
  }),
]);
export type Decision = z.infer<typeof Decision>;

let counter = 0;
/** A short unique id for an action (process-local counter + random suffix). */
export function newActionId(): string {
  counter = (counter + 1) % 1_000_000_000;
  return `call_${counter.toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

type Act = z.infer<typeof ActDecision>;
type Final = z.infer<typeof FinalDecision>;
type Wait = z.infer<typeof WaitDecision>;

/** Convenience constructors for decisions (each returns its own mode's type, so it can be a branch candidate). */
export const decide = {
  act(actions: Array<Omit<Action, 'id'> & { id?: string }>, rationale?: string): Act {
    return {
      mode: 'act',
      actions: actions.map((a) => ({ ...a, id: a.id ?? newActionId() })),
      ...(rationale ? { rationale } : {}),
    };
  },
  call(name: string, args: Record<string, unknown> = {}, rationale?: string): Act {
    return decide.act([{ name, args }], rationale);
  },
  final(answer: string, rationale?: string): Final {
    return { mode: 'final', answer, ...(rationale ? { rationale } : {}) };
  },
  wait(rationale?: string): Wait {
    return { mode: 'wait', ...(rationale ? { rationale } : {}) };
  },
};
