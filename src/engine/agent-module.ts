import type {
  ActionResult,
  AnyTool,
  CallModel,
  Decision,
  HumanAsk,
  MemoryAccess,
  Model,
  Parser,
  PermissionRecord,
  State,
  StateMigration,
  Task,
} from '../core/index.js';
import { ToolRegistry } from './tool-registry.js';

/**
 * What an agent's methods are told about the run besides its state (the last argument of `observe`, `decide`,
 * `prepare` and `reduce`). One object per run; `step` follows the loop.
 */
export interface AgentContext {
  readonly runId: string;
  readonly step: number;
  /** 0 for a top-level run, 1 for a sub-agent's, ... */
  readonly depth: number;
  readonly signal: AbortSignal;
  /** A model call through the run's middleware, counted in its usage and budgets (critics, planners, judges). */
  readonly callModel: CallModel;
  /** The run's memory (`EngineOptions.memory`); every read and write is traced. */
  readonly memory: MemoryAccess | undefined;
  /**
   * Reports something the agent did as an `agent` event (hooks, the trace, `Engine.stream`): what a monitor
   * wants to see beyond the loop's own events (a workflow's LLM and tool calls, token usage, summaries).
   */
  emit(event: string, data: Record<string, unknown>): void;
  /**
   * Asks the run's approver (the terminal, a server's pending approvals, `onApproval`) as a permission ask is
   * asked: a pending `approval` event, the run's approval timeout, a refusal when the run is aborted, and a
   * `permission` record. Absent when the run has neither an approver nor permission rules; an answer with
   * `decidedBy: 'default'` means no one could answer (no approver).
   */
  askHuman?(what: HumanAsk): Promise<PermissionRecord>;
  /**
   * The run's own instance of `kind`, made with `new kind()` the first time the run asks for it: where an agent keeps
   * what it carries from one phase or step of a run to a later one outside the state (not traced, not replayed; it
   * ends with the run). Per-run data lives here or in the state, never on the agent, which may serve several runs.
   */
  local<T extends object>(kind: new () => T): T;
}

/** Options every AgentModule accepts. */
export interface AgentModuleOptions {
  /** The model of the model path (used when `decide` returns undefined). */
  model?: Model;
  /** Turns model replies into Decisions on the model path. */
  parser?: Parser;
  /** The tools the agent may call (a ToolRegistry, or tools to register in one). */
  tools?: Iterable<AnyTool> | ToolRegistry;
  /** Name recorded in traces (defaults to the class name). */
  name?: string;
  /** Free-form config recorded in the manifest (how to rebuild this agent). */
  config?: Record<string, unknown>;
  /** A label for the experiment variant (e.g. "baseline", "with-critic"), recorded on user messages and in the manifest. */
  variant?: string;
  /** The version of this agent's state schema (default: the class's `static stateVersion`, else 1). */
  stateVersion?: number;
  /** How to read states of older versions (default: the class's `static stateMigrations`). */
  stateMigrations?: readonly StateMigration[];
  /** Sampling parameters sent with every model request (recorded in the manifest with the model). */
  modelParams?: {
    temperature?: number;
    topP?: number;
    maxOutputTokens?: number;
    seed?: number;
    stop?: string[];
    providerOptions?: Record<string, unknown>;
  };
}

/**
 * An agent module of any state and observation type, for code that only passes agents along (bench factories,
 * loaders). `any`, not `unknown`: AgentModule takes and returns its state, so it is invariant in S and O, and no
 * concrete module would be assignable to `AgentModule<State, unknown>`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyAgentModule = AgentModule<any, any>;

/**
 * What a researcher subclasses. The engine calls, each step:
 * `observe` -> `decide` (return undefined to let the engine call the model: `buildSystemPrompt`, the history,
 * `prepare`, then the parser) -> actions run -> `reduce` -> `shouldStop`.
 * Only `initState` is required.
 */
export abstract class AgentModule<S extends State = State, O = unknown> {
  /**
   * The version of the state schema a subclass's states follow: raise it when a field is renamed, removed or
   * changes meaning, and add the migration from the last one to `stateMigrations`. Recorded in every manifest.
   */
  static stateVersion = 1;
  /** Migrations from older state versions (e.g. `[{ from: 1, to: 2, migrate: (s) => ... }]`), run on recorded states. */
  static stateMigrations: readonly StateMigration[] = [];

  readonly name: string;
  /** This agent's state schema version (the option, else the class's `static stateVersion`). */
  readonly stateVersion: number;
  /** Migrations run on a recorded state of an older version before this agent resumes, replays or forks it. */
  readonly stateMigrations: readonly StateMigration[];
  /** The model of the model path, when the agent has its own (an engine's `model` takes precedence). */
  model: Model | undefined;
  /** Turns model replies into Decisions on the model path. */
  parser: Parser | undefined;
  /** The agent's tools; the engine's executor runs them in ACT. */
  readonly tools: ToolRegistry;
  /** Free-form config recorded in the manifest (how to rebuild this agent). */
  readonly config: Record<string, unknown>;
  /** The experiment variant's label, recorded on user messages and in the manifest. */
  readonly variant: string | undefined;
  /** Sampling parameters sent with every model request. */
  modelParams: NonNullable<AgentModuleOptions['modelParams']>;

  constructor(options: AgentModuleOptions = {}) {
    this.name = options.name ?? this.constructor.name;
    const cls = this.constructor as typeof AgentModule;
    this.stateVersion = options.stateVersion ?? cls.stateVersion;
    if (!Number.isInteger(this.stateVersion) || this.stateVersion < 1)
      throw new TypeError(`${this.name}: stateVersion must be a positive integer, got ${String(this.stateVersion)}`);
    this.stateMigrations = options.stateMigrations ?? cls.stateMigrations;
    this.model = options.model;
    this.parser = options.parser;
    this.tools = options.tools instanceof ToolRegistry ? options.tools : new ToolRegistry(options.tools ?? []);
    this.config = options.config ?? {};
    this.variant = options.variant;
    this.modelParams = options.modelParams ?? {};
  }

  /** The state at the start of a run. Use `baseState(task)` for the base fields. */
  abstract initState(task: Task): S;

  /** What the agent sees this step; `envView` is `env.observe()`. Default: the env view. */
  observe(_state: S, envView: unknown, _ctx: AgentContext): O | Promise<O> {
    return envView as O;
  }

  /** A Decision, or undefined to take the model path. */
  decide(_state: S, _observation: O, _ctx: AgentContext): Decision | undefined | Promise<Decision | undefined> {
    return undefined;
  }

  /**
   * The system prompt of the model path. Default: the parser's instructions for the agent's tools (how to reply so
   * that the parser reads a decision), none without a parser. An override that writes its own prompt keeps the
   * format part with `this.parser.instructions(this.tools.specs())`; return undefined for no system prompt.
   */
  buildSystemPrompt(_state: S): string | undefined {
    return this.parser?.instructions(this.tools.specs());
  }

  /**
   * The user message of this step on the model path (appended to the history), or undefined for none.
   * Default: the task on the first step, nothing after (tool results already follow the model's calls).
   */
  prepare(state: S, _observation: O, _ctx: AgentContext): string | undefined {
    return state.messages.length === 0 ? state.task : undefined;
  }

  /** The state after this step's actions. Default: unchanged. */
  reduce(state: S, _observation: O, _decision: Decision, _results: ActionResult[], _ctx: AgentContext): S | Promise<S> {
    return state;
  }

  /** True (or a message) to stop with `agent_condition`. */
  shouldStop(_state: S): boolean | string {
    return false;
  }
}
