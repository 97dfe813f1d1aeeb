import type { Search, SearchContext, SimpleDecision, State } from '../../core/index.js';

/**
 * Scores one candidate (higher is better): a heuristic over the decision and state, a value model through
 * `ctx.callModel` (counted in the run's usage), anything. Without one, a search uses the agent's own scores
 * (`branch.scores`), else 0 for every candidate (ties go to the earlier candidate).
 */
export type CandidateScorer<S extends State = State> = (
  candidate: SimpleDecision,
  ctx: SearchContext<S>,
) => number | Promise<number>;

/** `Search.score` from an optional scorer. */
export function scoreWith<S extends State>(scorer: CandidateScorer<S> | undefined): Search<S>['score'] {
  return async (candidates, ctx) => {
    if (scorer) {
      const out: number[] = [];
      for (const c of candidates) out.push(await scorer(c, ctx));
      return out;
    }
    const priors = ctx.priors;
    return candidates.map((_, i) => (priors && typeof priors[i] === 'number' ? priors[i] : 0));
  };
}
