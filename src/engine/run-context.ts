import type { MemoryInputOptions } from './memory-input.js';
import type {
  ActContext,
  Budget,
  CallModel,
  Env,
  Failure,
  Model,
  ModelChain,
  ParentLink,
  Phase,
  Policy,
  SimpleDecision,
  State,
  Task,
  Tokens,
  Usage,
} from '../core/index.js';
import type { RunRecorder } from '../trace/index.js';
import type { AgentModule } from './agent-module.js';
import type { ModelInputBuilder } from './model-input.js';
import type { RunEvents } from './run-events.js';
import type { RunMemoryAccess } from './run-memory-access.js';
import type { PermissionGate } from './permission-gate.js';

/** What changes as a run goes: its state, step, phase, usage and failures. One per run, never shared. */
export interface RunState<S extends State = State> {
  readonly runId: string;
  readonly task: Task;
  state: S;
  step: number;
  phase: Phase;
  readonly startedAt: number;
  /** Tokens and cost of every model call of the run (and of its sub-runs), and how many calls it made. */
  usage: Usage;
  /** The part of `usage` spent by calls besides the steps' own (`callModel`), by purpose (`user`, `compaction`, ...). */
  usageByPurpose: Record<string, Usage>;
  /** Tokens of the last model-path call (compaction measures the context with it). */
  lastStepTokens: Tokens | undefined;
  /** Consecutive failed steps (reset by a step that completes). */
  recoveries: number;
  failures: Failure[];
  policyEvents: Record<string, number>;
  /** Each critic's consecutive retries (reset by its `continue`). */
  criticRetries: Record<string, number>;
  /** The state at the start of each branch step whose candidates are still in the search's frontier (for backtracking). */
  searchSnapshots: Map<number, S>;
  /** The decision the next step acts on instead of deciding (`resumeFrom.decision`). */
  forced: SimpleDecision | undefined;
}

/** A run before it has a state (the task was invalid, or `initState` failed): enough to end it and say why. */
export type RunStart<S extends State = State> = Omit<RunState<S>, 'state'> & { state: S | undefined };

/** What a run uses, fixed when it starts: the agent, model, env, per-run policies, hooks, trace and model chain. */
export interface RunServices<S extends State = State> {
  readonly runId: string;
  readonly agent: AgentModule<S, unknown>;
  readonly model: Model | undefined;
  readonly env: Env;
  /** This run's own policy instances (`Policy.forRun`). */
  readonly policies: readonly Policy<S>[];
  /** Where its events go (hooks, the trace, a stream consumer): `events.emit`. */
  readonly events: RunEvents;
  /** Writes the trace (undefined when tracing is off). */
  readonly recorder: RunRecorder | undefined;
  readonly traceDir: string | null;
  readonly parent: ParentLink | undefined;
  /** 0 for a top-level run, the parent's depth + 1 for a sub-run. */
  readonly depth: number;
  readonly input: ModelInputBuilder;
  readonly signal: AbortSignal;
  /** Aborts the run (external signal, SIGINT, time budget, a stream consumer that left). */
  readonly abort: AbortController;
  /** The run's model chain (middleware composed once, around the model), undefined without a model. */
  chain: ModelChain | undefined;
  /** A call through `chain` that is not the step's own (tools, policies, agents, memories). */
  readonly callModel: CallModel;
  readonly memory: RunMemoryAccess | undefined;
  /** Memory retrieval into the model input (`EngineOptions.memoryInput`), when the run has a memory. */
  readonly memoryInput: MemoryInputOptions | undefined;
  /** The run's permission gate, when the engine has permission rules. */
  readonly permission: PermissionGate | undefined;
  /** What `AgentContext.askHuman` asks through: the permission gate, or a rule-less one for a run with only an approver. */
  readonly asker: PermissionGate | undefined;
  /** The link a sub-run of this run gets (`ToolContext.childLink`). */
  childLink(): ParentLink;
  /** Tells hooks, the trace and a stream consumer a tool call's state moved (what the executor reports). */
  onToolState: ActContext['onState'];
  /** The tightest of the task's, the engine's and the parent's share of budget (the state's `maxSteps` aside). */
  readonly budget: Budget;
}

/**
 * One run as the phase helpers (critique, branch search, the model turn, policy contexts) see it: what changes and
 * what it uses. The engine's `RunLoop` is one.
 */
export interface ActiveRun<S extends State = State> {
  readonly run: RunState<S>;
  readonly services: RunServices<S>;
}

/** Narrows a run that now has its state (same object: what closures hold sees the state too). */
export function withState<S extends State>(run: RunStart<S>, state: S): RunState<S> {
  return Object.assign(run, { state });
}
