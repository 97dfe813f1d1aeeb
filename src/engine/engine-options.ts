import type { MemoryInputOptions } from './memory-input.js';
import type {
  ActionRunner,
  Approver,
  BreakCondition,
  Breakpoint,
  Budget,
  OnBreak,
  PermissionConfig,
  Critic,
  CustomPartKinds,
  Env,
  Failure,
  Hook,
  HookEvent,
  Memory,
  Model,
  ModelMiddleware,
  ParentLink,
  Policy,
  Redactor,
  Search,
  SimpleDecision,
  State,
  StopReason,
  Usage,
} from '../core/index.js';
import type { TraceOptions } from '../trace/index.js';
import type { AgentModule } from './agent-module.js';
import type { ExecutorOptions } from './action-executor.js';

/** Options of an Engine. Only `agent` is required. */
export interface EngineOptions<S extends State> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any observation type (AgentModule is invariant in it)
  agent: AgentModule<S, any>;
  env?: Env;
  /** Overrides the agent's model (e.g. from `--model`). */
  model?: Model;
  policies?: Policy<S>[];
  hooks?: Hook[];
  /**
   * Middleware around every model call of a run, outermost first. The chain of a run is composed once: the
   * engine's policies and accounting, then these, then the model's own layers (a `createModel` model's retries).
   */
  middleware?: ModelMiddleware[];
  /** End the run when a hook throws, instead of reporting `hook_error` and going on. */
  failOnHookError?: boolean;
  /** `false` turns tracing off. */
  trace?: TraceOptions | false;
  /**
   * The secret values of the run (its API keys, expanded `${VAR}`s, a server token): nothing the trace writer
   * writes and nothing `Engine.stream` yields holds one of them (hooks, in-process code of the user's, see events as they are).
   */
  redactor?: Redactor;
  /** Engine-wide budget; the tightest of this, the task's and the parent's share applies. */
  budget?: Budget;
  /** The run this one descends from: a sub-run's parent (`ToolContext.childLink()`), or the run a replay or fork is of. */
  parent?: ParentLink;
  /** The run's long-lived memory (a factory gives every run its own); agents reach it as `ctx.memory`. */
  memory?: Memory | (() => Memory);
  /**
   * Retrieve from `memory` before every model-path call and give the model what was found after the system
   * prompt (the Python qitos kernel's `memory.retrieve_messages` in DECIDE); traced in the step record and served back on replay.
   */
  memoryInput?: MemoryInputOptions;
  /**
   * Custom part kinds the history may hold (the tool system requirements' custom parts): each kind's zod schema checks a part's `data`, and
   * its `render` says what a provider gets (text, a file, or nothing). A part of a kind not listed here stops the
   * model turn with an error naming it.
   */
  partKinds?: CustomPartKinds;
  /** Consecutive failed steps RECOVER feeds back before the run ends `unrecoverable_error` (default 3). */
  maxRecoveries?: number;
  tools?: ExecutorOptions;
  /** Replaces the action executor (replay serves recorded tool results this way). */
  executor?: ActionRunner;
  /** Judges each step after REDUCE (the CRITIQUE phase): continue, retry with feedback, or stop (docs/critics.md). */
  critics?: Critic<S>[];
  /** Picks which candidate of a `branch` decision to act on, with a frontier for backtracking (docs/search.md). */
  search?: Search<S>;
  /** The simple form of `search`: picks one candidate of a `branch` decision (default: the first). Ignored when `search` is set. */
  selectBranch?: (candidates: SimpleDecision[], state: S) => SimpleDecision | Promise<SimpleDecision>;
  /**
   * Permission rules, in opencode's `permission` shape (docs/permissions.md): allow, ask or deny per tool id, with
   * patterns over the call's main input; the last matching rule wins. Without rules every tool call runs.
   */
  permission?: PermissionConfig;
  /** Answers calls a rule says to `ask` about (the terminal, a server, a program). Without one an ask is refused. */
  onApproval?: Approver;
  /** How long an ask waits for its answer before the call is refused (default 300 000 ms). */
  approvalTimeoutMs?: number;
  /** The home folder `~` and `$HOME` in permission patterns stand for (default `os.homedir()`). */
  home?: string;
  /**
   * Where a run stops for `onBreak` (a phase, a step, a tool, an expression; docs/debugging.md). Each run starts
   * from its own copy of the list, which `onBreak` may change.
   */
  breakpoints?: Breakpoint[];
  /**
   * The step debugger: called at each stop with the state, observation, decision, messages and results; answers
   * continue, step, next, until, edit (the decision, before ACT), skip (a tool call) or stop. Without it the
   * run never stops and the loop pays nothing for the feature.
   */
  onBreak?: OnBreak<S>;
  /** Evaluates `expr` breakpoints (the CLI passes `qitos-ts/expr`'s `evaluateCondition`); the engine has no language of its own. */
  breakCondition?: BreakCondition;
  /** Services passed to every tool call (`ctx.services`). */
  services?: Record<string, unknown>;
  /**
   * End the run on SIGINT, and likewise on SIGTERM and SIGHUP (status `interrupted`, trace finalized, the env's
   * commands killed); a second signal kills the env's processes and exits at once. The CLI sets it.
   */
  handleSigint?: boolean;
  seed?: number;
  /** Fixed run id (default: generated). */
  runId?: string;
}

/** Options of one run. */
export interface RunOptions<S extends State> {
  signal?: AbortSignal;
  /**
   * Start from a recorded state after step `step` instead of `initState` (fork). With `decision`, the first step
   * acts on it instead of deciding (`qitos fork --branch`: an unexplored candidate of a branch step).
   * `stateVersion`: the agent state schema version the state was recorded under (the trace manifest's
   * `agent.stateVersion`, 1 when absent); an older one goes through the agent's `stateMigrations` first, and one
   * no migration reaches ends the run with an error naming both versions. Omitted: the state is taken as current.
   */
  resumeFrom?: { state: S; step: number; decision?: SimpleDecision; stateVersion?: number };
}

/** Options of `Engine.stream`. */
export interface StreamOptions<S extends State> extends RunOptions<S> {
  /** Events held for a slow consumer before the run waits for it (default 256). */
  buffer?: number;
}

/** What `Engine.run` returns. */
export interface RunResult<S extends State> {
  /**
   * The final state. A run that ended before it had one (`task_invalid`, or `initState` threw) has none: check
   * `stopReason` before reading it in code that may see such runs.
   */
  state: S;
  stopReason: StopReason;
  stopMessage: string;
  finalResult: string | null;
  steps: number;
  usage: Usage;
  /** The part of `usage` spent by calls besides the steps' own (`callModel`), by purpose (a user simulator's `user`, `compaction`, ...). */
  usageByPurpose: Record<string, Usage>;
  runId: string;
  traceDir: string | null;
  failures: Failure[];
}

/** What `Engine.stream` yields: every event of the run as hooks see it, then the result. */
export type RunEvent<S extends State = State> = HookEvent | { type: 'result'; result: RunResult<S> };
