import type { Critic, State } from '../../core/index.js';

/** Options of {@link selfReflectionCritic}. */
export interface SelfReflectionCriticOptions {
  /** Consecutive retries (default 2). */
  maxRetries?: number;
}

/**
 * Reflexion on tool errors, without a model call: when a step's tool calls failed, it sends the model back with
 * the errors and asks it to reflect on the cause before trying again (a retry); a step without errors continues.
 * Score: the share of the step's tool calls that succeeded (1 for a step without calls).
 */
export function selfReflectionCritic<S extends State = State>(options: SelfReflectionCriticOptions = {}): Critic<S> {
  return {
    name: 'self-reflection',
    maxRetries: options.maxRetries ?? 2,
    critique({ results }) {
      const failed = results.filter((r) => r.status === 'error');
      const score = results.length ? (results.length - failed.length) / results.length : 1;
      if (!failed.length) return { action: 'continue', score };
      const errors = failed.map((r) => `- ${r.name}: ${r.error ?? 'failed'}`).join('\n');
      return {
        action: 'retry',
        score,
        reason: `${failed.length} of ${results.length} tool call(s) failed`,
        feedback:
          `These tool calls failed:\n${errors}\nBefore you act again, state in one or two sentences ` +
          `why they failed and what you will do differently; do not repeat a call that cannot ` +
          `succeed.`,
      };
    },
  };
}
