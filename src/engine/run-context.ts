import type { ActionResult, Decision, Env, Failure, HookEvent, Model, Phase, Policy, PolicyContext, State, StepRecord, Task, Tokens, ToolPart, Usage } from '../core/index.js';
import type { AgentModule } from './agent-module.js';
import type { HookBus } from './hook-bus.js';
import type { ModelInputBuilder } from './model-input.js';
import type { RunRecorder } from './run-recorder.js';

/** Everything one run carries from phase to phase. Created by `Engine.run`, never shared between runs. */
export interface RunContext<S extends State = State> {
  runId: string;
  task: Task;
  agent: AgentModule<S, unknown>;
  model: Model | undefined;
  env: Env;
  policies: readonly Policy<S>[];
  state: S;
  step: number;
  phase: Phase;
  startedAt: number;
  usage: Usage;
  lastStepTokens: Tokens | undefined;
  /** Consecutive failed steps (reset by a step that completes). */
  recoveries: number;
  failures: Failure[];
  policyEvents: Record<string, number>;
  signal: AbortSignal;
  /** Aborts the run (external signal, SIGINT, time budget). */
  abort: AbortController;
  /** Writes the trace (undefined when tracing is off). */
  recorder: RunRecorder | undefined;
  traceDir: string | null;
  hooks: HookBus;
  input: ModelInputBuilder;
  /** Hash of the system prompt last recorded in the trace (it is recorded again only when it changes). */
  recordedSystemHash: string | undefined;
  /** Tool parts of this step's assistant message, by call id (the executor advances their state). */
  toolParts: Map<string, ToolPart>;
  /** The step record being filled. */
  rec: StepRecord;
  emit(event: HookEvent): void;
  policyContext(extra?: { decision?: Decision; results?: ActionResult[] }): PolicyContext<S>;
}
