import type {
  BranchRecord,
  Decision,
  FrontierEntry,
  ScoredCandidate,
  Search,
  SearchContext,
  SearchState,
  SimpleDecision,
  State,
} from '../core/index.js';
import { QitosError, decisionSignature, emptySearchState } from '../core/index.js';
import type { EngineOptions } from './engine-options.js';
import type { ActiveRun, RunServices, RunState } from './run-context.js';

type Branch = Extract<Decision, { mode: 'branch' }>;

/**
 * Narrows a branch decision to the candidate the step acts on: the engine's `search` when it has one (which may
 * backtrack: the run's state is then an earlier step's), else `selectBranch` (default: the first candidate).
 * Either way the choice is recorded like a search's, so `qitos fork --branch` can take another candidate of any
 * branch step, and reported as an event.
 */
export async function chooseCandidate<S extends State>(
  options: Pick<EngineOptions<S>, 'search' | 'selectBranch'>,
  branch: Branch,
  { run, services }: ActiveRun<S>,
): Promise<{ decision: SimpleDecision; record: BranchRecord }> {
  if (options.search) {
    const found = await searchBranch(options.search, branch, run, services);
    run.state = found.state;
    const { record } = found;
    services.events.emit({
      type: 'search',
      step: run.step,
      search: record.search,
      scores: record.scores,
      chosen: record.chosen,
      frontier: record.frontier,
    });
    return { decision: found.decision, record };
  }
  const { candidates, scores } = branch;
  const chosen = await (options.selectBranch ? options.selectBranch(candidates, run.state) : candidates[0]);
  const index = candidates.indexOf(chosen);
  const record: BranchRecord = {
    search: options.selectBranch ? 'selectBranch' : 'first',
    candidates,
    scores: candidates.map((_, i) => scores?.[i] ?? 0),
    chosen: { from: 'step', index, fromStep: run.step },
    frontier: 0,
  };
  services.events.emit({
    type: 'policy',
    step: run.step,
    policy: 'branch',
    event: 'selected',
    data: { candidates: candidates.length, chosen: chosen.mode, index },
  });
  return { decision: chosen, record };
}

/** What the search of a branch step decided: the decision to act on, its record, and the state to act from. */
interface SearchOutcome<S extends State> {
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
async function searchBranch<S extends State>(
  search: Search<S>,
  branch: Branch,
  run: RunState<S>,
  services: RunServices<S>,
): Promise<SearchOutcome<S>> {
  const previous = searchStateOf(run.state);
  const restorable = previous.frontier.filter((e) => run.searchSnapshots.has(e.step));
  const ctx: SearchContext<S> = {
    runId: run.runId,
    step: run.step,
    state: run.state,
    priors: branch.scores,
    search: { ...previous, frontier: restorable },
    signal: services.signal,
    callModel: services.callModel,
  };
  const candidates = search.expand ? await search.expand(branch.candidates, ctx) : branch.candidates;
  if (!Array.isArray(candidates) || candidates.length === 0)
    throw new QitosError('internal', `search ${search.name}: expand returned no candidates`);
  const scores = await search.score(candidates, ctx);
  if (
    !Array.isArray(scores) ||
    scores.length !== candidates.length ||
    scores.some((x) => typeof x !== 'number' || Number.isNaN(x))
  ) {
    throw new QitosError(
      'internal',
      `search ${search.name}: score must return one number per candidate (${candidates.length}), got ${JSON.stringify(scores)}`,
    );
  }
  const scored: ScoredCandidate[] = candidates.map((candidate, index) => ({ index, candidate, score: scores[index] }));
  const choice = search.select(scored, ctx);
  let decision: SimpleDecision;
  let from: FrontierEntry | undefined;
  if (choice.from === 'step') {
    const picked = scored[choice.index];
    if (!picked)
      throw new QitosError(
        'internal',
        `search ${search.name}: select chose candidate ${choice.index} of ${scored.length}`,
      );
    decision = picked.candidate;
  } else {
    if (!run.searchSnapshots.has(choice.entry.step))
      throw new QitosError(
        'internal',
        `search ${search.name}: select chose a frontier entry of step ${choice.entry.step}, whose state is not kept`,
      );
    from = choice.entry;
    decision = choice.entry.candidate;
  }
  // Keep this step's starting state if the frontier holds its candidates; forget states nothing can return to.
  const pruned = search.prune ? search.prune(choice.frontier, ctx) : choice.frontier;
  const frontier = pruned.filter((e) => e.step === run.step || run.searchSnapshots.has(e.step));
  // Without its search state: a restore writes the new one, and copies of frontiers in every copy would grow as n^2.
  if (frontier.some((e) => e.step === run.step)) run.searchSnapshots.set(run.step, snapshotOf(run.state));
  const kept = new Set(frontier.map((e) => e.step));
  for (const step of run.searchSnapshots.keys())
    if (!kept.has(step) && step !== from?.step) run.searchSnapshots.delete(step);
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
    chosen: from
      ? { from: 'frontier', index: from.index, fromStep: from.step }
      : { from: 'step', index: (choice as { index: number }).index, fromStep: run.step },
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
  if (
    !s ||
    typeof s !== 'object' ||
    !Array.isArray(s.frontier) ||
    !s.explored ||
    typeof s.explored !== 'object' ||
    typeof s.backtracks !== 'number'
  )
    return emptySearchState();
  return s as SearchState;
}

/** A copy of the state to return to, without the search state in its metadata. */
function snapshotOf<S extends State>(state: S): S {
  const { search: _search, ...metadata } = state.metadata;
  return structuredClone({ ...state, metadata });
}
