import type { Critic, State } from '../../core/index.js';

/** A critic that lets every step stand (score 1): the control arm of an A/B of critics, with the same phase and trace. */
export function passThroughCritic<S extends State = State>(): Critic<S> {
  return { name: 'pass-through', critique: () => ({ action: 'continue', score: 1 }) };
}
