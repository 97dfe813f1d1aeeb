import { resolve } from 'node:path';
import type {
  Action, ActionResult, Budget, Decision, Env, EnvArtifact, Failure, Hook, HookEvent, Manifest, Model, Phase, Policy, PolicyContext,
  SimpleDecision, State, StepRecord, StopReason, StopVerdict, Task, TaskInput, Usage,
} from '../core/index.js';
import {
  AbortedError, BaseState, QitosError, Task as TaskSchema, classifyError, emptyTokens, errorMessage,
  newActionId, newId, nullEnv, totalTokens,
} from '../core/index.js';
import type { AgentModule } from './agent-module.js';
import { ActionExecutor, type ExecutorOptions } from './action-executor.js';
import { HookBus } from './hook-bus.js';
import { ModelInputBuilder } from './model-input.js';
import { decideWithModel } from './model-path.js';
import type { RunContext } from './run-context.js';
import { RunRecorder, type TraceOptions } from './run-recorder.js';

export type { TraceOptions } from './run-recorder.js';

/** Options of an Engine. Only `agent` is required. */
export interface EngineOptions<S extends State> {
  agent: AgentModule<S, any>;
  env?: Env;
  /** Overrides the agent's model (e.g. from `--model`). */
  model?: Model;
  policies?: Policy<S>[];
  hooks?: Hook[];
  /** End the run when a hook throws, instead of reporting `hook_error` and going on. */
  failOnHookError?: boolean;
  /** `false` turns tracing off. */
  trace?: TraceOptions | false;
  /** Engine-wide budget; the tighter of this and the task's budget applies. */
  budget?: Budget;
  /** Consecutive failed steps RECOVER feeds back before the run ends `unrecoverable_error` (default 3). */
  maxRecoveries?: number;
  tools?: ExecutorOptions;
  /** Replaces the action executor (replay serves recorded tool results this way). */
  executor?: Pick<ActionExecutor, 'run'>;
  /** Picks one candidate of a `branch` decision (default: the first). */
  selectBranch?: (candidates: SimpleDecision[], state: S) => SimpleDecision | Promise<SimpleDecision>;
  /** Services passed to every tool call (`ctx.services`). */
  services?: Record<string, unknown>;
  /** Abort the run on SIGINT (status `interrupted`, trace finalized). The CLI sets it. */
  handleSigint?: boolean;
  seed?: number;
  /** Fixed run id (default: generated). */
  runId?: string;
}

/** What `Engine.run` returns. */
export interface RunResult<S extends State> {
  state: S;
  stopReason: StopReason;
  stopMessage: string;
  finalResult: string | null;
  steps: number;
  usage: Usage;
  runId: string;
  traceDir: string | null;
  failures: Failure[];
}

/** Milliseconds rounded to the microsecond (trace size). */
const round = (x: number) => Math.round(x * 1000) / 1000;

/**
 * Runs an AgentModule through the loop OBSERVE -> DECIDE -> ACT -> REDUCE -> CHECK_STOP, with RECOVER on errors.
 * One Engine may run many tasks, one after another or concurrently: each run has its own context.
 */
export class Engine<S extends State = State> {
  readonly agent: AgentModule<S, any>;
  private readonly executor: Pick<ActionExecutor, 'run'>;

  constructor(readonly options: EngineOptions<S>) {
    this.agent = options.agent;
    this.executor = options.executor ?? new ActionExecutor(this.agent.tools, options.tools);
  }

  /**
   * Runs one task to its end. Never throws for anything the run does: the result carries the stop reason.
   * `resumeFrom` starts from a recorded state after step `step` instead of `initState` (fork).
   */
  async run(input: TaskInput | string, opts: { signal?: AbortSignal; resumeFrom?: { state: S; step: number } } = {}): Promise<RunResult<S>> {
    const rc = this.begin(opts.signal);
    const stopTimers = this.watchSignals(rc, opts.signal);
    try {
      const parsed = TaskSchema.safeParse(typeof input === 'string' ? { id: newId('task'), objective: input } : input);
      if (!parsed.success) {
        const i = parsed.error.issues[0];
        rc.task = { id: 'invalid', objective: '', inputs: {}, resources: {}, budget: {}, successCriteria: [], metadata: { input } };
        return await this.end(rc, { reason: 'task_invalid', message: `invalid task: ${i.path.join('.') || '(task)'}: ${i.message}` });
      }
      rc.task = parsed.data;
      rc.state = opts.resumeFrom ? opts.resumeFrom.state : this.agent.initState(rc.task);
      rc.step = opts.resumeFrom?.step ?? 0;
      // Checked once per run: the loop relies on these fields (a NaN maxSteps would silently disable the budget).
      const base = BaseState.safeParse(rc.state);
      if (!base.success) {
        const i = base.error.issues[0];
        throw new QitosError('internal', `${opts.resumeFrom ? 'the state to resume from' : `${this.agent.name}.initState returned a state that`} is invalid: ${i.path.join('.') || '(state)'}: ${i.message}`);
      }
      rc.recorder?.start(rc);
      rc.emit({ type: 'run_start', runId: rc.runId, taskId: rc.task.id, traceDir: rc.traceDir });
      await rc.env.setup?.(rc.task);
      const missing = this.agent.tools.missingCapabilities(rc.env);
      if (missing.length) {
        const what = missing.map((m) => `tool "${m.tool}" needs op group "${m.group}"`).join('; ');
        return await this.end(rc, { reason: 'env_capability_mismatch', message: `env "${rc.env.name}" lacks capabilities: ${what}` });
      }
      const budgetTimer = this.startBudgetTimer(rc);
      try {
        for (const p of rc.policies) p.start?.(rc.policyContext());
        for (;;) {
          const verdict = await this.step(rc);
          if (verdict) return await this.end(rc, verdict);
        }
      } finally {
        if (budgetTimer) clearTimeout(budgetTimer);
      }
    } catch (err) {
      // Setup, initState or the engine itself failed: record it and end; never reject.
      rc.failures.push({ step: rc.step, kind: classifyError(err), message: errorMessage(err), fatal: true });
      const reason: StopReason = rc.signal.aborted ? 'interrupted' : 'unrecoverable_error';
      return await this.end(rc, { reason, message: `${rc.phase} failed: ${errorMessage(err)}` });
    } finally {
      stopTimers();
    }
  }

  /** One iteration of the loop. Returns a verdict when the run should stop. */
  private async step(rc: RunContext<S>): Promise<StopVerdict | undefined> {
    rc.step++;
    rc.state.step = rc.step;
    rc.toolParts = new Map();
    rc.rec = { step: rc.step, startedAt: Date.now(), durationMs: 0, phases: {}, observation: null, decision: null, results: [], stateDiff: {} };
    const t0 = performance.now();
    let verdict: StopVerdict | undefined;
    try {
      this.throwIfAborted(rc);
      // OBSERVE
      const observation = await this.phase(rc, 'observe', () => this.agent.observe(rc.state, rc.env.observe?.()));
      rc.rec.observation = observation ?? null;
      // DECIDE
      const decision = await this.phase(rc, 'decide', () => this.decide(rc, observation));
      // ACT
      const results = decision.mode === 'act' ? await this.phase(rc, 'act', () => this.act(rc, decision.actions)) : [];
      this.throwIfAborted(rc);
      // REDUCE
      await this.phase(rc, 'reduce', () => this.reduce(rc, observation, decision, results));
      // CHECK_STOP
      verdict = await this.phase(rc, 'check_stop', () => this.checkStop(rc, decision, results));
      rc.recoveries = 0;
    } catch (err) {
      // RECOVER
      verdict = this.recover(rc, err) ?? this.checkBudgets(rc);
    }
    rc.rec.durationMs = round(performance.now() - t0);
    if (verdict) {
      rc.rec.stop = verdict;
      rc.state.stopReason = verdict.reason; // before the diff, so the trace rebuilds the final state
    }
    rc.recorder?.step(rc);
    return verdict;
  }

  private async decide(rc: RunContext<S>, observation: unknown): Promise<Decision> {
    let decision = await this.agent.decide(rc.state, observation);
    if (decision === undefined) decision = await decideWithModel(rc, observation);
    if (decision.mode === 'branch') {
      const pick = this.options.selectBranch ?? ((c: SimpleDecision[]) => c[0]);
      const chosen = await pick(decision.candidates, rc.state);
      rc.emit({ type: 'policy', step: rc.step, policy: 'branch', event: 'selected', data: { candidates: decision.candidates.length, chosen: chosen.mode } });
      decision = chosen;
    }
    rc.rec.decision = checkDecision(decision, this.agent.name);
    return rc.rec.decision;
  }

  private async act(rc: RunContext<S>, actions: Action[]): Promise<ActionResult[]> {
    const results = await this.executor.run(actions, {
      runId: rc.runId,
      traceDir: rc.traceDir,
      step: rc.step,
      env: rc.env,
      state: rc.state,
      signal: rc.signal,
      services: this.options.services ?? {},
      onState: (action, state) => {
        const part = rc.toolParts.get(action.id);
        if (part) part.state = state;
        rc.emit({ type: 'tool_state', step: rc.step, callId: action.id, tool: action.name, state });
      },
    });
    rc.rec.results = results;
    return results;
  }

  private async reduce(rc: RunContext<S>, observation: unknown, decision: Decision, results: ActionResult[]): Promise<void> {
    rc.state = await this.agent.reduce(rc.state, observation, decision, results);
    for (const p of rc.policies) {
      if (!p.reduce) continue;
      const next = await p.reduce(rc.policyContext({ decision, results }));
      if (next) rc.state = next;
    }
  }

  private async checkStop(rc: RunContext<S>, decision: Decision, results: ActionResult[]): Promise<StopVerdict | undefined> {
    if (decision.mode === 'final') {
      rc.state.finalResult = decision.answer;
      return { reason: 'final', message: 'the agent gave a final answer' };
    }
    const own = this.agent.shouldStop(rc.state);
    if (own) return { reason: 'agent_condition', message: typeof own === 'string' ? own : `${this.agent.name}.shouldStop returned true` };
    if (rc.env.isTerminal?.()) return { reason: 'env_terminal', message: `env "${rc.env.name}" reached a terminal state` };
    for (const p of rc.policies) {
      if (!p.checkStop) continue;
      const v = await p.checkStop(rc.policyContext({ decision, results }));
      if (v) return v;
    }
    return this.checkBudgets(rc);
  }

  /** Budgets: the tighter of the state's maxSteps, the task's and the engine's budget. */
  private checkBudgets(rc: RunContext<S>): StopVerdict | undefined {
    const b = rc.task.budget;
    const e = this.options.budget ?? {};
    const maxSteps = Math.min(rc.state.maxSteps, b.maxSteps ?? Infinity, e.maxSteps ?? Infinity);
    if (rc.step >= maxSteps) return { reason: 'budget_steps', message: `step budget of ${maxSteps} reached` };
    const maxSeconds = Math.min(b.maxSeconds ?? Infinity, e.maxSeconds ?? Infinity);
    const elapsed = (Date.now() - rc.startedAt) / 1000;
    if (elapsed >= maxSeconds) return { reason: 'budget_time', message: `time budget of ${maxSeconds}s reached (${elapsed.toFixed(1)}s)` };
    const maxTokens = Math.min(b.maxTokens ?? Infinity, e.maxTokens ?? Infinity);
    const used = totalTokens(rc.usage.tokens);
    if (used >= maxTokens) return { reason: 'budget_tokens', message: `token budget of ${maxTokens} reached (${used} used)` };
    const maxCost = Math.min(b.maxCost ?? Infinity, e.maxCost ?? Infinity);
    if (rc.usage.cost !== null && rc.usage.cost >= maxCost) return { reason: 'budget_cost', message: `cost budget of ${maxCost} reached (${rc.usage.cost.toFixed(4)} spent)` };
    return undefined;
  }

  /**
   * RECOVER: classify the error. Parse, model-transport, tool and env errors are fed back to the model as a
   * user message (and `state.metadata.lastError`) and the loop goes on, up to `maxRecoveries` consecutive
   * failures. Aborts end `interrupted`; bugs (internal errors), bad requests and context overflow end at once.
   */
  private recover(rc: RunContext<S>, err: unknown): StopVerdict | undefined {
    rc.phase = 'recover';
    const kind = classifyError(err);
    const message = errorMessage(err);
    if (rc.signal.aborted || kind === 'aborted') {
      rc.rec.error = { kind: 'aborted', message, recovered: false };
      return this.abortVerdict(rc);
    }
    const hookFailure = rc.hooks.failure;
    const limit = this.options.maxRecoveries ?? 3;
    const fatal = hookFailure !== undefined || kind === 'internal' || kind === 'model_request' || kind === 'context_overflow' || rc.recoveries >= limit;
    rc.rec.error = { kind, message, recovered: !fatal };
    rc.failures.push({ step: rc.step, kind, message, fatal });
    rc.emit({ type: 'recover', step: rc.step, kind, message, recoveries: rc.recoveries, fatal });
    if (fatal) {
      if (kind === 'context_overflow') return { reason: 'context_overflow', message };
      const why = rc.recoveries >= limit && kind !== 'internal' ? `gave up after ${limit} consecutive recoveries; last error (${kind}): ${message}` : `${kind} error in ${rc.rec.decision ? 'step' : 'decide'} ${rc.step}: ${message}`;
      return { reason: 'unrecoverable_error', message: why };
    }
    rc.recoveries++;
    rc.state.metadata.lastError = { step: rc.step, kind, message };
    rc.state.messages.push({
      role: 'user',
      info: { id: newId('msg'), role: 'user', time: { created: Date.now() }, agent: this.agent.name },
      parts: [{ id: newId('prt'), type: 'text', synthetic: true, text: `Error (${kind}) in step ${rc.step}: ${message}` }],
    });
    return undefined;
  }

  private abortVerdict(rc: RunContext<S>): StopVerdict {
    const reason = rc.signal.reason;
    if (reason instanceof QitosError && reason.message.startsWith('budget_time')) return { reason: 'budget_time', message: reason.message.slice('budget_time: '.length) };
    return { reason: 'interrupted', message: `run interrupted${reason instanceof Error ? `: ${reason.message}` : ''}` };
  }

  /** Times a phase for the step record and tells hooks it started and ended. */
  private async phase<T>(rc: RunContext<S>, phase: Phase, fn: () => T | Promise<T>): Promise<T> {
    rc.phase = phase;
    const hooks = rc.hooks.active;
    if (hooks) rc.emit({ type: 'phase_start', step: rc.step, phase });
    const t0 = performance.now();
    const out = await fn();
    const ms = performance.now() - t0;
    rc.rec.phases[phase] = round(ms);
    if (hooks) {
      rc.emit({ type: 'phase_end', step: rc.step, phase, durationMs: ms });
      if (rc.hooks.failure) throw rc.hooks.failure;
    }
    return out;
  }

  private throwIfAborted(rc: RunContext<S>): void {
    if (rc.signal.aborted) throw new AbortedError();
  }

  // ---- run set-up and tear-down ----

  private begin(external: AbortSignal | undefined): RunContext<S> {
    const controller = new AbortController();
    const runId = this.options.runId ?? `${new Date().toISOString().replace(/[-:]/g, '').replace(/\..+/, '')}-${newId('run').slice(4)}`;
    const traceOpts = this.options.trace === false ? undefined : (this.options.trace ?? {});
    const traceDir = traceOpts ? resolve(traceOpts.dir ?? 'traces', runId) : null;
    const rc: RunContext<S> = {
      runId,
      task: undefined as unknown as Task,
      agent: this.agent,
      model: this.options.model ?? this.agent.model,
      env: this.options.env ?? nullEnv,
      policies: this.options.policies ?? [],
      state: undefined as unknown as S,
      step: 0,
      phase: 'init',
      startedAt: Date.now(),
      usage: { tokens: emptyTokens(), cost: 0, modelCalls: 0 },
      lastStepTokens: undefined,
      recoveries: 0,
      failures: [],
      policyEvents: {},
      signal: controller.signal,
      abort: controller,
      recorder: traceDir ? new RunRecorder(traceDir, { agent: this.agent, trace: traceOpts!, budget: this.options.budget, seed: this.options.seed }) : undefined,
      traceDir,
      hooks: undefined as unknown as HookBus,
      input: new ModelInputBuilder(),
      toolParts: new Map(),
      recordedSystemHash: undefined,
      rec: undefined as unknown as StepRecord,
      emit: (event) => {
        if (rc.hooks.active) rc.hooks.emit(event);
        rc.recorder?.event(rc, event);
      },
      policyContext: (extra) => this.policyContext(rc, extra),
    };
    rc.hooks = new HookBus(
      this.options.hooks ?? [],
      (event, err) => {
        const ev: HookEvent = { type: 'hook_error', step: rc.step, event: event.type, message: errorMessage(err) };
        rc.failures.push({ step: rc.step, kind: 'hook', message: `hook failed on ${event.type}: ${errorMessage(err)}`, fatal: !!this.options.failOnHookError });
        rc.recorder?.event(rc, ev);
        if (event.type !== 'hook_error') rc.hooks.emit(ev);
      },
      this.options.failOnHookError,
    );
    return rc;
  }

  /** Links the external signal, SIGINT (when asked) to the run's own controller; returns the clean-up. */
  private watchSignals(rc: RunContext<S>, external: AbortSignal | undefined): () => void {
    const controller = rc.abort;
    const onAbort = () => controller.abort(external?.reason ?? new AbortedError());
    if (external?.aborted) onAbort();
    external?.addEventListener('abort', onAbort, { once: true });
    const onSigint = () => controller.abort(new AbortedError('SIGINT'));
    if (this.options.handleSigint) process.once('SIGINT', onSigint);
    return () => {
      external?.removeEventListener('abort', onAbort);
      if (this.options.handleSigint) process.removeListener('SIGINT', onSigint);
    };
  }

  private startBudgetTimer(rc: RunContext<S>): NodeJS.Timeout | undefined {
    const secs = Math.min(rc.task.budget.maxSeconds ?? Infinity, this.options.budget?.maxSeconds ?? Infinity);
    if (!Number.isFinite(secs)) return undefined;
    const controller = rc.abort;
    const t = setTimeout(() => controller.abort(new QitosError('aborted', `budget_time: time budget of ${secs}s reached`)), Math.max(0, secs * 1000 - (Date.now() - rc.startedAt)));
    t.unref?.();
    return t;
  }

  private policyContext(rc: RunContext<S>, extra?: { decision?: Decision; results?: ActionResult[] }): PolicyContext<S> {
    return {
      runId: rc.runId,
      task: rc.task,
      state: rc.state,
      step: rc.step,
      ...extra,
      usage: rc.usage,
      lastStepTokens: rc.lastStepTokens,
      elapsedMs: Date.now() - rc.startedAt,
      model: rc.model,
      modelInfo: rc.model?.info,
      signal: rc.signal,
      emit: (event, data) => {
        rc.policyEvents[event] = (rc.policyEvents[event] ?? 0) + 1;
        rc.emit({ type: 'policy', step: rc.step, policy: String(data.policy ?? event.split(':')[0]), event, data });
      },
    };
  }

  private async end(rc: RunContext<S>, verdict: StopVerdict): Promise<RunResult<S>> {
    rc.phase = 'end';
    if (rc.state) {
      rc.state.stopReason = verdict.reason;
      if (verdict.reason !== 'final' && rc.state.finalResult === undefined) rc.state.finalResult = null;
    }
    // Artifacts first: close may remove what they are made from (a repository's temporary worktree).
    let artifacts: EnvArtifact[] = [];
    try {
      artifacts = (await rc.env.artifacts?.()) ?? [];
    } catch (err) {
      rc.failures.push({ step: rc.step, kind: 'env', message: `env.artifacts failed: ${errorMessage(err)}`, fatal: false });
    }
    try {
      await rc.env.close?.();
    } catch (err) {
      rc.failures.push({ step: rc.step, kind: 'env', message: `env.close failed: ${errorMessage(err)}`, fatal: false });
    }
    const summary: NonNullable<Manifest['summary']> = {
      stopReason: verdict.reason,
      message: verdict.message,
      finalResult: rc.state?.finalResult ?? null,
      steps: rc.step,
      usage: rc.usage,
      durationMs: Date.now() - rc.startedAt,
      failures: rc.failures,
      policyEvents: rc.policyEvents,
    };
    rc.emit({ type: 'run_end', runId: rc.runId, stopReason: verdict.reason, finalResult: summary.finalResult, steps: rc.step });
    try {
      rc.recorder?.finish(rc, verdict, summary, artifacts);
    } catch (err) {
      // The trace cannot be written (disk full, folder removed): the result still says how the run ended.
      rc.failures.push({ step: rc.step, kind: 'trace', message: `could not write the trace in ${rc.traceDir}: ${errorMessage(err)}`, fatal: false });
    }
    return {
      state: rc.state,
      stopReason: verdict.reason,
      stopMessage: verdict.message,
      finalResult: summary.finalResult,
      steps: rc.step,
      usage: rc.usage,
      runId: rc.runId,
      // null when the trace folder could not even be created: never point callers at a folder that does not exist
      traceDir: rc.recorder?.wrote ? rc.traceDir : null,
      failures: rc.failures,
    };
  }
}

/** Light shape check of a decision returned by agent code (the hot path avoids a full zod parse). */
function checkDecision(d: Decision, agent: string): Decision {
  if (!d || typeof d !== 'object') throw new QitosError('internal', `${agent}.decide returned ${JSON.stringify(d)}, not a Decision`);
  if (d.mode === 'act') {
    if (!Array.isArray(d.actions) || d.actions.length === 0) throw new QitosError('internal', `${agent}: an "act" decision needs at least one action`);
    for (const a of d.actions) {
      if (!a || typeof a.name !== 'string' || !a.name) throw new QitosError('internal', `${agent}: action without a tool name: ${JSON.stringify(a)}`);
      if (!a.id) a.id = newActionId();
      if (!a.args || typeof a.args !== 'object') a.args = {};
    }
  } else if (d.mode === 'final') {
    if (typeof d.answer !== 'string') throw new QitosError('internal', `${agent}: a "final" decision needs a string answer, got ${JSON.stringify(d.answer)}`);
  } else if (d.mode !== 'wait') {
    throw new QitosError('internal', `${agent}: unknown decision mode ${JSON.stringify((d as { mode: unknown }).mode)}`);
  }
  return d;
}
