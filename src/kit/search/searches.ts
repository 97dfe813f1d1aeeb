import type { Search, State } from '../../core/index.js';
import type { CandidateScorer } from './candidate-scorer.js';
import { frontierSearch } from './frontier-search.js';

/** Greedy: act on this step's best candidate; no frontier, never backtracks. */
export function greedySearch<S extends State = State>(options: { scorer?: CandidateScorer<S> } = {}): Search<S> {
  return frontierSearch<S>('greedy', { ...options, cap: 0, backtrack: false });
}

/**
 * Beam: the best `width` alternatives are kept (this step's and earlier ones together), the rest pruned; act on
 * the best of them, which may be an earlier step's (a backtrack). A narrow beam forgets alternatives fast.
 */
export function beamSearch<S extends State = State>(options: {
  width: number;
  scorer?: CandidateScorer<S>;
}): Search<S> {
  if (!Number.isInteger(options.width) || options.width < 1)
    throw new Error(`beamSearch: width must be a positive integer, got ${options.width}`);
  return frontierSearch<S>(`beam(${options.width})`, { ...options, cap: options.width - 1, backtrack: true });
}

/**
 * Best-first with backtracking: every candidate not acted on goes into the frontier (up to `cap`, default 256);
 * whenever the frontier holds a better one than this step's best, the run backtracks to the state of that
 * candidate's step and acts on it.
 */
export function bestFirstSearch<S extends State = State>(
  options: { cap?: number; scorer?: CandidateScorer<S> } = {},
): Search<S> {
  return frontierSearch<S>('best-first', { ...options, cap: options.cap ?? 256, backtrack: true });
}

/**
 * Dynamic tree search: best-first on score plus a novelty bonus, `bonus / sqrt(1 + n)` where n is how often the
 * same action (tool and arguments, or answer) was already acted on in the run, so the search spreads over actions
 * it has not tried; the frontier is capped (default 32).
 */
export function treeSearch<S extends State = State>(
  options: { bonus?: number; cap?: number; scorer?: CandidateScorer<S> } = {},
): Search<S> {
  const bonus = options.bonus ?? 0.5;
  if (!(bonus >= 0)) throw new Error(`treeSearch: bonus must be a number >= 0, got ${bonus}`);
  return frontierSearch<S>('tree', {
    ...options,
    cap: options.cap ?? 32,
    backtrack: true,
    priority: ({ score, signature }, ctx) => score + bonus / Math.sqrt(1 + (ctx.search.explored[signature] ?? 0)),
  });
}
