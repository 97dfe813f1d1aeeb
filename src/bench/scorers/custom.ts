import type { Score, ScoreInput, Scorer } from '../scorer.js';
import { verdict } from '../scorer.js';

/** What a custom scoring function may return: a full Score, a pass flag, or a score in [0, 1] (pass at >= 1). */
export type CustomScoreResult = Score | boolean | number;

/**
 * A scorer from a function, for checks no built-in does (an env's end state, a test suite, a simulator).
 * A boolean becomes score 1/0; a number is the score and passes at 1.
 */
export function custom(
  fn: (input: ScoreInput) => CustomScoreResult | Promise<CustomScoreResult>,
  name = fn.name || 'custom',
): Scorer {
  return {
    name,
    async score(input) {
      const r = await fn(input);
      if (typeof r === 'boolean') return verdict(r, r ? 'custom check passed' : 'custom check failed');
      if (typeof r === 'number') return { score: r, pass: r >= 1, explanation: `custom score ${r}` };
      return r;
    },
  };
}
