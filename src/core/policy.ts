import type { State } from './state.js';
import type { Decision } from './decision.js';
import type { ActionResult } from './action.js';
import type { ModelMessage } from './model-message.js';
import type { Model, ModelInfo } from './model.js';
import type { Tokens, Usage } from './usage.js';
import type { StopVerdict } from './stop-reason.js';
import type { Task } from './task.js';
import type { ModelError } from './errors.js';
import type { CallModel } from './model-call.js';

/** What a policy sees. `emit` records a policy event in hooks and the trace (every decision a policy takes). */
export interface PolicyContext<S extends State = State> {
  runId: string;
  task: Task;
  state: S;
  step: number;
  /** The decision and results of this step (in `reduce` and `checkStop`). */
  decision?: Decision;
  results?: ActionResult[];
  /** Usage of the whole run so far, and the tokens of the last model step (if any). */
  usage: Usage;
  lastStepTokens?: Tokens;
  elapsedMs: number;
  model?: Model;
  modelInfo?: ModelInfo;
  signal: AbortSignal;
  /** A model call through the run's middleware, counted in the run's usage and budgets. */
  callModel: CallModel;
  emit(type: string, data: Record<string, unknown>): void;
}

/** What `beforeModel` may return: rewritten model messages, and/or a new state (e.g. compacted history). */
export interface BeforeModelResult<S extends State = State> {
  messages?: ModelMessage[];
  state?: S;
}

/**
 * How doom-loop detection, compaction and budgets plug into the loop. Every method is optional.
 * Policies run in the order given to the Engine.
 *
 * One policy object may be given to many runs, one after another or at once. A policy that remembers
 * anything implements `forRun`: the engine calls it when a run starts and uses the policy it returns for that
 * run only, so no two runs share state.
 */
export interface Policy<S extends State = State> {
  readonly name: string;
  /** The instance that serves one run (fresh state). Without it, the object itself serves every run. */
  forRun?(run: { runId: string }): Policy<S>;
  /** Called once before step 1. */
  start?(ctx: PolicyContext<S>): void;
  /** REDUCE, after the agent's reduce. May return a new state. */
  reduce?(ctx: PolicyContext<S>): S | void | Promise<S | void>;
  /** CHECK_STOP. May return a stop verdict. */
  checkStop?(ctx: PolicyContext<S>): StopVerdict | void | Promise<StopVerdict | void>;
  /** DECIDE, right before a model call. May rewrite the messages or the state (the engine rebuilds messages then). */
  beforeModel?(
    messages: ModelMessage[],
    ctx: PolicyContext<S>,
  ): BeforeModelResult<S> | void | Promise<BeforeModelResult<S> | void>;
  /** A model call failed. Returning a state makes the engine retry the call once with it (e.g. after compaction). */
  onModelError?(error: ModelError, ctx: PolicyContext<S>): { state: S } | void | Promise<{ state: S } | void>;
}
