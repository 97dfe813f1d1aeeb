import type { BranchRecord, Decision, FrontierEntry, ScoredCandidate, Search, SearchContext, SearchState, SimpleDecision, State } from '../core/index.js';
import { QitosError, decisionSignature, emptySearchState } from '../core/index.js';
import type { RunServices, RunState } from './run-context.js';

type Branch = Extract<Decision, { mode: 'branch' }>;

/** What the search of a branch step decided: the decision to act on, its record, and the state to act from. */
export interface SearchOutcome<S extends State> {
  decision: SimpleDecision;
  record: BranchRecord;
  /** The state the run continues from (a backtrack restores an earlier step's, with the new frontier). */
  state: S;
}

/**
 * Runs a search over a branch decision: expand, score, select, prune.
 * The frontier is kept in `state.metadata.search`; the states it may return to are kept by the run (never in the
 * trace's state diffs), so an entry whose state is gone (a forked run) is left out before the search sees it.
 */
export async function searchBranch<S extends State>(search: Search<S>, branch: Branch, run: RunState<S>, s: RunServices<S>): Promise<SearchOutcome<S>> {
  const previous = searchStateOf(run.state);
  const restorable = previous.frontier.filter((e) => run.searchSnapshots.has(e.step));
  const ctx: SearchContext<S> = {
    runId: run.runId,
    step: run.step,
    state: run.state,
    priors: branch.scores,
    search: { ...previous, frontier: restorable },
    signal: s.signal,
    callModel: s.callModel,
  };
  const candidates = search.expand ? await search.expand(branch.candidates, ctx) : branch.candidates;
  if (!Array.isArray(candidates) || candidates.length === 0) throw new QitosError('internal', `search ${search.name}: expand returned no candidates`);
  const scores = await search.score(candidates, ctx);
  if (!Array.isArray(scores) || scores.length !== candidates.length || scores.some((x) => typeof x !== 'number' || Number.isNaN(x))) {
    throw new QitosError('internal', `search ${search.name}: score must return one number per candidate (${candidates.length}), got ${JSON.stringify(scores)}`);
  }
  const scored: ScoredCandidate[] = candidates.map((candidate, index) => ({ index, candidate, score: scores[index] }));
  const choice = search.select(scored, ctx);
  let decision: SimpleDecision;
  let from: FrontierEntry | undefined;
  if (choice.from === 'step') {
    const picked = scored[choice.index];
    if (!picked) throw new QitosError('internal', `search ${search.name}: select chose candidate ${choice.index} of ${scored.length}`);
    decision = picked.candidate;
  } else {
    if (!run.searchSnapshots.has(choice.entry.step)) throw new QitosError('internal', `search ${search.name}: select chose a frontier entry of step ${choice.entry.step}, whose state is not kept`);
    from = choice.entry;
    decision = choice.entry.candidate;
  }
  // Keep this step's starting state if the frontier holds its candidates; forget states nothing can return to.
  const pruned = search.prune ? search.prune(choice.frontier, ctx) : choice.frontier;
  const frontier = pruned.filter((e) => e.step === run.step || run.searchSnapshots.has(e.step));
  // Without its search state: a restore writes the new one, and copies of frontiers in every copy would grow as n^2.
  if (frontier.some((e) => e.step === run.step)) run.searchSnapshots.set(run.step, snapshotOf(run.state));
  const kept = new Set(frontier.map((e) => e.step));
  for (const step of run.searchSnapshots.keys()) if (!kept.has(step) && step !== from?.step) run.searchSnapshots.delete(step);
  const signature = decisionSignature(decision);
  const next: SearchState = {
    frontier,
    explored: { ...previous.explored, [signature]: (previous.explored[signature] ?? 0) + 1 },
    backtracks: previous.backtracks + (from ? 1 : 0),
  };
  const base = from ? structuredClone(run.searchSnapshots.get(from.step)!) : run.state;
  if (from && !kept.has(from.step)) run.searchSnapshots.delete(from.step);
  const state = { ...base, step: run.step, metadata: { ...base.metadata, search: next } } as S;
  const record: BranchRecord = {
    search: search.name,
    candidates,
    scores,
    chosen: from ? { from: 'frontier', index: from.index, fromStep: from.step } : { from: 'step', index: (choice as { index: number }).index, fromStep: run.step },
    frontier: frontier.length,
  };
  return { decision, record, state };
}

/**
 * The search state the run keeps in `state.metadata.search`, or a fresh one. A shape check, not a schema parse: the
 * engine wrote it, and a full parse of a frontier of hundreds of decisions every step would cost more than the search.
 */
function searchStateOf(state: State): SearchState {
  const s = state.metadata.search as Partial<SearchState> | undefined;
  if (!s || typeof s !== 'object' || !Array.isArray(s.frontier) || !s.explored || typeof s.explored !== 'object' || typeof s.backtracks !== 'number') return emptySearchState();
  return s as SearchState;
}

/** A copy of the state to return to, without the search state in its metadata. */
function snapshotOf<S extends State>(state: S): S {
  const { search: _search, ...metadata } = state.metadata;
  return structuredClone({ ...state, metadata });
}
