import { z } from 'zod';
import type { CallModel } from './model-call.js';
import { SimpleDecision } from './decision.js';
import { canonicalJson } from './canonical-json.js';
import type { State } from './state.js';

/**
 * An alternative a search kept for later: a candidate of an earlier branch step, its score, and the step whose
 * starting state it belongs to (a backtrack restores that state, then acts on the candidate).
 */
export const FrontierEntry = z.object({
  /** The step the candidate was proposed in. */
  step: z.number().int().nonnegative(),
  /** Its index among that step's candidates. */
  index: z.number().int().nonnegative(),
  candidate: SimpleDecision,
  score: z.number(),
});
export type FrontierEntry = z.infer<typeof FrontierEntry>;

/** The search's part of the run's state (`state.metadata.search`): the frontier and what was explored. */
export const SearchState = z.object({
  frontier: z.array(FrontierEntry),
  /** How many times each action signature (tool + args, or the answer) was acted on: the novelty measure. */
  explored: z.record(z.string(), z.number()),
  backtracks: z.number().int().nonnegative(),
});
export type SearchState = z.infer<typeof SearchState>;

/** One candidate with its score, as `select` sees it. */
export interface ScoredCandidate {
  index: number;
  candidate: SimpleDecision;
  score: number;
}

/** What a search is given at a branch step. */
export interface SearchContext<S extends State = State> {
  runId: string;
  step: number;
  state: Readonly<S>;
  /** Scores the agent proposed with the candidates (`Decision` branch `scores`), if any. */
  priors: readonly number[] | undefined;
  /** The search's state from the run's state (the frontier); fresh at the start of each run. */
  search: Readonly<SearchState>;
  signal: AbortSignal;
  callModel: CallModel;
}

/** What `select` picked: a candidate of this step, or a frontier entry (a backtrack), and the new frontier. */
export type SearchChoice =
  | { from: 'step'; index: number; frontier: FrontierEntry[] }
  | { from: 'frontier'; entry: FrontierEntry; frontier: FrontierEntry[] };

/**
 * Picks which candidate of a `branch` decision to act on (`EngineOptions.search`), in four stages: `expand` may add
 * candidates, `score` rates each, `select` chooses among this step's candidates and the frontier of earlier ones
 * (returning the others as the new frontier), and `prune` cuts that frontier (to a cap, a score floor, ...). The
 * frontier lives in the run's state (`state.metadata.search`), so nothing is
 * kept across runs, and the trace records every candidate and score. Kit: `greedySearch`, `beamSearch`,
 * `bestFirstSearch`, `treeSearch` (`qitos-ts/search`).
 */
export interface Search<S extends State = State> {
  readonly name: string;
  expand?(candidates: readonly SimpleDecision[], ctx: SearchContext<S>): SimpleDecision[] | Promise<SimpleDecision[]>;
  score(candidates: readonly SimpleDecision[], ctx: SearchContext<S>): number[] | Promise<number[]>;
  select(scored: readonly ScoredCandidate[], ctx: SearchContext<S>): SearchChoice;
  prune?(frontier: readonly FrontierEntry[], ctx: SearchContext<S>): FrontierEntry[];
}

/** The record of a branch step in `steps.jsonl`: every candidate, its score, and what was acted on. */
export const BranchRecord = z.object({
  search: z.string(),
  candidates: z.array(SimpleDecision),
  scores: z.array(z.number()),
  /** `step`: candidate `index` of this step; `frontier`: a backtrack to candidate `index` of step `fromStep`. */
  chosen: z.object({ from: z.enum(['step', 'frontier']), index: z.number().int(), fromStep: z.number().int() }),
  frontier: z.number().int().nonnegative(),
});
export type BranchRecord = z.infer<typeof BranchRecord>;

/** A fresh search state (the start of a run). */
export function emptySearchState(): SearchState {
  return { frontier: [], explored: {}, backtracks: 0 };
}

/** The action signature the novelty bonus counts: tool names with arguments, or the answer. */
export function decisionSignature(d: SimpleDecision): string {
  if (d.mode === 'act') return d.actions.map((a) => `${a.name}(${canonicalJson(a.args)})`).join(';');
  return d.mode === 'final' ? `final:${d.answer}` : 'wait';
}
