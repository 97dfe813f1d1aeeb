import type { FrontierEntry, Search, SearchChoice, ScoredCandidate, SearchContext, State } from '../../core/index.js';
import { decisionSignature } from '../../core/index.js';
import { scoreWith, type CandidateScorer } from './candidate-scorer.js';

/** How a frontier search ranks an entry: its score, plus a bonus where the strategy wants one. */
export type Priority = (entry: { score: number; signature: string }, ctx: SearchContext<State>) => number;

/** Options shared by the frontier searches. */
export interface FrontierSearchOptions<S extends State = State> {
  scorer?: CandidateScorer<S>;
  /** Most entries the frontier keeps (the lowest-ranked are pruned). */
  cap: number;
  /** Keep alternatives at all (false: greedy). */
  backtrack: boolean;
  priority?: Priority;
}

/**
 * The one frontier search the kit's strategies are made of: this step's candidates and the frontier's entries are
 * ranked together (by score, or by `priority`); `select` acts on the best (a frontier entry means a backtrack to
 * its step's state) and returns the rest, best first; `prune` keeps the first `cap` as the new frontier. Ties go to
 * this step's candidates, then to the
 * earlier entry, so a search never backtracks for nothing.
 */
export function frontierSearch<S extends State = State>(name: string, options: FrontierSearchOptions<S>): Search<S> {
  if (!Number.isInteger(options.cap) || options.cap < 0)
    throw new Error(`${name}: the frontier cap must be a non-negative integer, got ${options.cap}`);
  return {
    name,
    score: scoreWith(options.scorer),
    select(scored: readonly ScoredCandidate[], ctx: SearchContext<S>): SearchChoice {
      const rank = (score: number, signature: string) =>
        options.priority ? options.priority({ score, signature }, ctx as SearchContext<State>) : score;
      type Item = { entry: FrontierEntry; fresh: boolean; rank: number; order: number };
      const fresh: Item[] = scored.map((c, i) => ({
        entry: { step: ctx.step, index: c.index, candidate: c.candidate, score: c.score },
        fresh: true,
        rank: rank(c.score, decisionSignature(c.candidate)),
        order: i,
      }));
      const old: Item[] = options.backtrack
        ? ctx.search.frontier.map((e, i) => ({
            entry: e,
            fresh: false,
            rank: rank(e.score, decisionSignature(e.candidate)),
            order: scored.length + i,
          }))
        : [];
      const pool = [...fresh, ...old].sort(
        (a, b) => b.rank - a.rank || Number(b.fresh) - Number(a.fresh) || a.order - b.order,
      );
      const [best, ...rest] = pool;
      // Ranked best first, so `prune` keeps the best `cap`.
      const frontier = options.backtrack ? rest.map((i) => i.entry) : [];
      return best.fresh
        ? { from: 'step', index: best.entry.index, frontier }
        : { from: 'frontier', entry: best.entry, frontier };
    },
    prune: (frontier) => frontier.slice(0, options.cap),
  };
}
