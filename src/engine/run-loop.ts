import type {
  Action,
  ActionResult,
  ActContext,
  ActionRunner,
  Decision,
  EnvArtifact,
  Failure,
  Manifest,
  Phase,
  State,
  StopVerdict,
} from '../core/index.js';
import {
  AbortedError,
  BaseState,
  ParseError,
  QitosError,
  TimeBudgetError,
  budgetVerdict,
  bugStack,
  classifyError,
  errorMessage,
  formatZodIssue,
  newActionId,
  newId,
} from '../core/index.js';
import { firstUserFrame } from '../trace/first-user-frame.js';
import type { AgentContext } from './agent-module.js';
import { applyResults } from './apply-results.js';
import { BreakGate } from './break-gate.js';
import { chooseCandidate } from './branch-search.js';
import { critique, type CritiqueOutcome } from './critique.js';
import type { EngineOptions, RunOptions, RunResult } from './engine-options.js';
import { takeModelTurn } from './model-turn.js';
import { policyContext } from './policy-context.js';
import { withState, type ActiveRun, type RunServices, type RunStart, type RunState } from './run-context.js';
import { watchStopSignals } from './signal-watcher.js';
import { resumedState } from './resumed-state.js';
import { StepRecordBuilder } from './step-record-builder.js';

/** The loop lets the event loop run (signals, timers, aborts, other runs) once this many ms passed since it last did. */
const YIELD_EVERY_MS = 10;

/**
 * One run of an agent, the loop of docs/architecture.md as methods, in the order they run: `run` -> `begin`
 * -> `loop` -> `step` (OBSERVE, DECIDE, ACT, REDUCE, CRITIQUE, CHECK_STOP; RECOVER on an error) -> `end`.
 * It holds what the phases share: the run (what changes), its services (what it uses, from `openRun`) and the
 * step being run, so no phase passes them along.
 */
export class RunLoop<S extends State> implements ActiveRun<S> {
  /** The run once it has its state (set by `begin`; before that only `end` reads the run, as `start`). */
  run!: RunState<S>;
  /** What agent methods are told about the run (one object per run; `step` follows the loop). */
  private ctx!: AgentContext;
  /** The record of the step being run (its one writer; the trace recorder reads it). */
  private rec!: StepRecordBuilder;
  /** The step debugger's stops at the phase edges (only with `onBreak`: without it the loop pays one `if` per phase). */
  private readonly gate: BreakGate<S> | undefined;
  private readonly executor: ActionRunner;

  constructor(
    private readonly options: EngineOptions<S>,
    executor: ActionRunner,
    private readonly start: RunStart<S>,
    readonly services: RunServices<S>,
  ) {
    this.gate = options.onBreak && new BreakGate(options, options.onBreak, this);
    this.executor = this.gate ? this.gate.runner(executor) : executor;
  }

  /** Runs the task to its end. Never throws for anything the run does: the result carries the stop reason. */
  async execute(opts: RunOptions<S>, invalidTask: string | undefined): Promise<RunResult<S>> {
    const stopWatching = this.watchSignals(opts.signal);
    try {
      if (invalidTask !== undefined) return await this.end({ reason: 'task_invalid', message: invalidTask });
      return await this.end((await this.begin(opts)) ?? (await this.loop()));
    } catch (err) {
      // Setup, initState or the engine itself failed: record it and end; never reject.
      const start = this.start;
      start.failures.push({
        step: start.step,
        kind: classifyError(err),
        message: errorMessage(err),
        fatal: true,
        ...whereThrown(err),
      });
      const reason = this.services.signal.aborted ? 'interrupted' : 'unrecoverable_error';
      return await this.end({ reason, message: `${start.phase} failed: ${errorMessage(err)}` });
    } finally {
      stopWatching();
    }
  }

  /** initState (or the state to resume from) -> trace start -> run_start -> env.setup -> capability preflight. */
  private async begin(opts: RunOptions<S>): Promise<StopVerdict | undefined> {
    const { start, services } = this;
    const agent = services.agent;
    start.state = opts.resumeFrom ? resumedState(agent, opts.resumeFrom) : agent.initState(start.task);
    start.step = opts.resumeFrom?.step ?? 0;
    // Checked once per run: the loop relies on these fields (a NaN maxSteps would silently disable the budget).
    const base = BaseState.safeParse(start.state);
    if (!base.success) {
      const whose = opts.resumeFrom ? 'the state to resume from' : `${agent.name}.initState returned a state that`;
      throw new QitosError('internal', `${whose} is invalid: ${formatZodIssue(base.error.issues[0], '(state)')}`);
    }
    const run = (this.run = withState(start, start.state));
    run.forced = opts.resumeFrom?.decision;
    this.ctx = this.agentContext();
    services.recorder?.start(run);
    services.events.emit({ type: 'run_start', runId: run.runId, taskId: run.task.id, traceDir: services.traceDir });
    await services.env.setup?.(run.task);
    const missing = agent.tools.missingCapabilities(services.env);
    if (!missing.length) return undefined;
    const what = missing.map((m) => `tool "${m.tool}" needs op group "${m.group}"`).join('; ');
    return { reason: 'env_capability_mismatch', message: `env "${services.env.name}" lacks capabilities: ${what}` };
  }

  /** memory.reset -> each policy's start -> steps until one returns a verdict (the time budget may abort one). */
  private async loop(): Promise<StopVerdict> {
    const budgetTimer = this.startBudgetTimer();
    try {
      await this.services.memory?.reset();
      for (const p of this.services.policies) p.start?.(policyContext(this));
      let yielded = performance.now();
      for (;;) {
        const verdict = await this.step();
        if (verdict) return verdict;
        // A step that awaits no I/O never leaves the microtask queue: without this, signals, timers, aborts and
        // other runs would wait for the whole run. Yielding by elapsed time keeps it off the per-step cost.
        if (performance.now() - yielded >= YIELD_EVERY_MS) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          yielded = performance.now();
        }
      }
    } finally {
      if (budgetTimer) clearTimeout(budgetTimer);
    }
  }

  /** One iteration of the loop. Returns a verdict when the run should stop. */
  private async step(): Promise<StopVerdict | undefined> {
    const run = this.run;
    run.step++;
    run.state.step = run.step;
    const rec = (this.rec = new StepRecordBuilder(run.step));
    const t0 = performance.now();
    let verdict: StopVerdict | undefined;
    try {
      this.throwIfAborted();
      const observation = await this.phase('observe', () => this.observe());
      const decided = await this.phase('decide', () => this.decide(observation));
      const decision = this.gate ? await this.gate.beforeAct(decided, rec) : decided;
      const results = decision.mode === 'act' ? await this.phase('act', () => this.act(decision.actions)) : [];
      this.throwIfAborted();
      await this.phase('reduce', () => this.reduce(observation, decision, results));
      const critiqued = this.options.critics?.length
        ? await this.phase('critique', () => this.critique(decision, results))
        : undefined;
      verdict =
        critiqued?.stop ??
        (await this.phase('check_stop', () => this.checkStop(decision, results, critiqued?.retry ?? false)));
      run.recoveries = 0;
    } catch (err) {
      verdict = this.recover(err) ?? this.checkBudgets();
    }
    rec.finished(performance.now() - t0, verdict);
    if (verdict) run.state.stopReason = verdict.reason; // before the diff, so the trace rebuilds the final state
    this.services.recorder?.step(rec.record, run.state, rec.system, rec.tools);
    return verdict;
  }

  /** OBSERVE: the agent's view of the env. */
  private async observe(): Promise<unknown> {
    const observation = await this.services.agent.observe(this.run.state, this.services.env.observe?.(), this.ctx);
    this.rec.observed(observation);
    return observation;
  }

  /** DECIDE: the forced decision of a fork, the agent's own, or a model turn; a branch is narrowed to one candidate. */
  private async decide(observation: unknown): Promise<Decision> {
    const { run, services, rec } = this;
    let decision: Decision | undefined;
    if (run.forced) {
      // A fork of a branch step acts on the candidate it was given.
      decision = run.forced;
      run.forced = undefined;
      services.events.emit({
        type: 'policy',
        step: run.step,
        policy: 'fork',
        event: 'forced_decision',
        data: { mode: decision.mode },
      });
    } else decision = await services.agent.decide(run.state, observation, this.ctx);
    if (decision === undefined) {
      const turn = await takeModelTurn(this, observation, this.ctx);
      rec.modelTurn(turn);
      if (ParseError.isInstance(turn.outcome)) throw turn.outcome;
      decision = turn.outcome;
    }
    if (decision.mode === 'branch') {
      const chosen = await chooseCandidate(this.options, decision, this);
      rec.branched(chosen.record);
      decision = chosen.decision;
    }
    const checked = checkDecision(decision, services.agent.name);
    rec.decided(checked);
    return checked;
  }

  /** ACT: the executor runs the actions; their results complete the reply's tool parts (the one way into the history). */
  private async act(actions: Action[]): Promise<ActionResult[]> {
    const { run, services, rec } = this;
    const ctx: ActContext = {
      runId: run.runId,
      traceDir: services.traceDir,
      step: run.step,
      env: services.env,
      state: run.state,
      signal: services.signal,
      services: this.options.services ?? {},
      depth: services.depth,
      callModel: services.callModel,
      childLink: services.childLink,
      onState: services.onToolState,
      ...services.permission?.actHooks(),
    };
    const results = await this.executor.run(actions, ctx);
    rec.acted(results);
    if (rec.reply) applyResults(rec.reply, results);
    return results;
  }

  /** REDUCE: the agent's reduce, then each policy's. */
  private async reduce(observation: unknown, decision: Decision, results: ActionResult[]): Promise<void> {
    const run = this.run;
    run.state = await this.services.agent.reduce(run.state, observation, decision, results, this.ctx);
    for (const p of this.services.policies) {
      if (!p.reduce) continue;
      const next = await p.reduce(policyContext(this, { decision, results }));
      if (next) run.state = next;
    }
  }

  /** CRITIQUE (only with critics): each critic judges the step; its verdicts go into the step record. */
  private async critique(decision: Decision, results: ActionResult[]): Promise<CritiqueOutcome> {
    const outcome = await critique(this.options.critics ?? [], this, decision, results);
    this.rec.critiqued(outcome.records);
    return outcome;
  }

  /** CHECK_STOP: final, agent, env, policies, budgets, in that order; a final answer a critic sent back does not end the run. */
  private async checkStop(
    decision: Decision,
    results: ActionResult[],
    retried: boolean,
  ): Promise<StopVerdict | undefined> {
    const { run, services } = this;
    if (decision.mode === 'final' && !retried) {
      run.state.finalResult = decision.answer;
      return { reason: 'final', message: 'the agent gave a final answer' };
    }
    const own = services.agent.shouldStop(run.state);
    if (own)
      return {
        reason: 'agent_condition',
        message: typeof own === 'string' ? own : `${services.agent.name}.shouldStop returned true`,
      };
    if (services.env.isTerminal?.())
      return { reason: 'env_terminal', message: `env "${services.env.name}" reached a terminal state` };
    for (const p of services.policies) {
      if (!p.checkStop) continue;
      const v = await p.checkStop(policyContext(this, { decision, results }));
      // `doom_loop: ask | allow` in the permission rules may let the run go on (docs/permissions.md).
      if (v && !(v.reason === 'doom_loop' && (await services.permission?.continueDoomLoop(v.message)))) return v;
    }
    return this.checkBudgets();
  }

  /** Budgets: the tightest of the state's maxSteps, the task's, the engine's and the parent's share. */
  private checkBudgets(): StopVerdict | undefined {
    const { run, services } = this;
    const b = services.budget;
    const maxSteps = b.maxSteps === undefined ? run.state.maxSteps : Math.min(run.state.maxSteps, b.maxSteps);
    const v = budgetVerdict(
      { ...b, maxSteps },
      { step: run.step, elapsedMs: Date.now() - run.startedAt, usage: run.usage },
    );
    return v && { reason: v.reason, message: v.message };
  }

  /**
   * RECOVER: classify the error. Parse, model-transport, tool and env errors are fed back to the model as a
   * user message (and `state.metadata.lastError`) and the loop goes on, up to `maxRecoveries` consecutive
   * failures. Aborts end `interrupted` (or `budget_time`); bugs (internal errors), bad requests and context
   * overflow end at once.
   */
  private recover(err: unknown): StopVerdict | undefined {
    const { run, services, rec } = this;
    run.phase = 'recover';
    const kind = classifyError(err);
    const message = errorMessage(err);
    if (services.signal.aborted || kind === 'aborted') {
      rec.failed({ kind: 'aborted', message, recovered: false });
      return this.abortVerdict();
    }
    const limit = this.options.maxRecoveries ?? 3;
    const fatal =
      services.events.hooks.failure !== undefined ||
      kind === 'internal' ||
      kind === 'model_request' ||
      kind === 'context_overflow' ||
      run.recoveries >= limit;
    rec.failed({ kind, message, recovered: !fatal });
    const where = whereThrown(err);
    run.failures.push({ step: run.step, kind, message, fatal, ...where });
    services.events.emit({
      type: 'recover',
      step: run.step,
      kind,
      message,
      recoveries: run.recoveries,
      fatal,
      ...where,
    });
    if (fatal) {
      if (kind === 'context_overflow') return { reason: 'context_overflow', message };
      const why =
        run.recoveries >= limit && kind !== 'internal'
          ? `gave up after ${limit} consecutive recoveries; last error (${kind}): ${message}`
          : `${kind} error in ${rec.hasDecision ? 'step' : 'decide'} ${run.step}: ${message}`;
      return { reason: 'unrecoverable_error', message: why };
    }
    run.recoveries++;
    run.state.metadata.lastError = { step: run.step, kind, message };
    run.state.messages.push({
      role: 'user',
      info: { id: newId('msg'), role: 'user', time: { created: Date.now() }, agent: services.agent.name },
      parts: [
        { id: newId('prt'), type: 'text', synthetic: true, text: `Error (${kind}) in step ${run.step}: ${message}` },
      ],
    });
    return undefined;
  }

  /** How an aborted run ends: `budget_time` when its time budget aborted it, else `interrupted`. */
  private abortVerdict(): StopVerdict {
    const reason = this.services.signal.reason;
    if (TimeBudgetError.isInstance(reason)) return { reason: 'budget_time', message: reason.message };
    return { reason: 'interrupted', message: `run interrupted${reason instanceof Error ? `: ${reason.message}` : ''}` };
  }

  /** Times a phase for the step record and tells hooks and a stream consumer it started and ended (waiting for a slow consumer). */
  private async phase<T>(phase: Phase, fn: () => T | Promise<T>): Promise<T> {
    const { run, services } = this;
    run.phase = phase;
    const observed = services.events.observed;
    if (observed) {
      const wait = services.events.emit({ type: 'phase_start', step: run.step, phase });
      if (wait) await wait;
    }
    if (this.gate) await this.gate.before(phase, this.rec);
    const t0 = performance.now();
    const out = await fn();
    const ms = performance.now() - t0;
    this.rec.phaseTimed(phase, ms);
    if (observed) {
      const wait = services.events.emit({ type: 'phase_end', step: run.step, phase, durationMs: ms });
      if (wait) await wait;
      if (services.events.hooks.failure) throw services.events.hooks.failure;
    }
    return out;
  }

  private throwIfAborted(): void {
    if (this.services.signal.aborted) throw new AbortedError();
  }

  /** What agent methods are told about the run (`step` follows the loop). */
  private agentContext(): AgentContext {
    const { run, services } = this;
    const locals = new Map<new () => object, object>();
    return {
      runId: run.runId,
      get step() {
        return run.step;
      },
      depth: services.depth,
      signal: services.signal,
      callModel: services.callModel,
      memory: services.memory,
      emit: (event, data) =>
        void services.events.emit({ type: 'agent', step: run.step, agent: services.agent.name, event, data }),
      ...(services.asker ? { askHuman: services.asker.askHuman.bind(services.asker) } : {}),
      local: <T extends object>(kind: new () => T): T => {
        let value = locals.get(kind) as T | undefined;
        if (!value) locals.set(kind, (value = new kind()));
        return value;
      },
    };
  }

  // ---- signals, the time budget, the end ----

  /** Links the external signal and the process's stop signals (when asked) to the run's own controller; returns the clean-up. */
  private watchSignals(external: AbortSignal | undefined): () => void {
    const { abort: controller, env } = this.services;
    const onAbort = () => controller.abort(external?.reason ?? new AbortedError());
    if (external?.aborted) onAbort();
    external?.addEventListener('abort', onAbort, { once: true });
    const unwatch = this.options.handleSigint
      ? watchStopSignals(
          (sig) => controller.abort(new AbortedError(sig)),
          () => env.kill?.(),
        )
      : undefined;
    return () => {
      external?.removeEventListener('abort', onAbort);
      unwatch?.();
    };
  }

  /** The time budget also aborts a step that hangs (the run then ends `budget_time`, not `interrupted`). */
  private startBudgetTimer(): NodeJS.Timeout | undefined {
    const secs = this.services.budget.maxSeconds;
    if (secs === undefined) return undefined;
    const controller = this.services.abort;
    const t = setTimeout(
      () => controller.abort(new TimeBudgetError(secs)),
      Math.max(0, secs * 1000 - (Date.now() - this.start.startedAt)),
    );
    t.unref?.();
    return t;
  }

  /** env.artifacts -> env.close -> run_end -> manifest finalized; the result. */
  private async end(verdict: StopVerdict): Promise<RunResult<S>> {
    const { start: run, services } = this;
    run.phase = 'end';
    if (run.state) {
      run.state.stopReason = verdict.reason;
      if (verdict.reason !== 'final' && run.state.finalResult === undefined) run.state.finalResult = null;
    }
    const artifacts = await this.closeEnv();
    const summary: NonNullable<Manifest['summary']> = {
      stopReason: verdict.reason,
      message: verdict.message,
      finalResult: run.state?.finalResult ?? null,
      steps: run.step,
      usage: run.usage,
      ...(Object.keys(run.usageByPurpose).length ? { usageByPurpose: run.usageByPurpose } : {}),
      durationMs: Date.now() - run.startedAt,
      failures: run.failures,
      policyEvents: run.policyEvents,
    };
    services.events.emit({
      type: 'run_end',
      runId: run.runId,
      stopReason: verdict.reason,
      finalResult: summary.finalResult,
      steps: run.step,
    });
    try {
      services.recorder?.finish(run, verdict, summary, artifacts);
    } catch (err) {
      // The trace cannot be written (disk full, folder removed): the result still says how the run ended.
      run.failures.push({
        step: run.step,
        kind: 'trace',
        message: `could not write the trace in ${services.traceDir}: ${errorMessage(err)}`,
        fatal: false,
      });
    }
    return {
      // undefined only for a run that never had a state (RunResult.state says when)
      state: run.state as S,
      stopReason: verdict.reason,
      stopMessage: verdict.message,
      finalResult: summary.finalResult,
      steps: run.step,
      usage: run.usage,
      usageByPurpose: run.usageByPurpose,
      runId: run.runId,
      // null when the trace folder could not even be created: never point callers at a folder that does not exist
      traceDir: services.recorder?.wrote ? services.traceDir : null,
      failures: run.failures,
    };
  }

  /** The env's artifacts, then env.close (artifacts first: close may remove what they are made from, a temporary worktree). */
  private async closeEnv(): Promise<EnvArtifact[]> {
    const { start: run, services } = this;
    let artifacts: EnvArtifact[] = [];
    try {
      artifacts = (await services.env.artifacts?.()) ?? [];
    } catch (err) {
      run.failures.push({
        step: run.step,
        kind: 'env',
        message: `env.artifacts failed: ${errorMessage(err)}`,
        fatal: false,
      });
    }
    try {
      await services.env.close?.();
    } catch (err) {
      run.failures.push({
        step: run.step,
        kind: 'env',
        message: `env.close failed: ${errorMessage(err)}`,
        fatal: false,
      });
    }
    return artifacts;
  }
}

/** Where a bug was thrown (its stack and first frame in the user's code), for its failure record; empty for classified errors. */
function whereThrown(err: unknown): Pick<Failure, 'at' | 'stack'> {
  const stack = bugStack(err);
  if (!stack) return {};
  const at = firstUserFrame(stack);
  return at ? { at, stack } : { stack };
}

/** Light shape check of a decision returned by agent code (the hot path avoids a full zod parse). */
function checkDecision(d: Decision, agent: string): Decision {
  if (!d || typeof d !== 'object')
    throw new QitosError('internal', `${agent}.decide returned ${JSON.stringify(d)}, not a Decision`);
  if (d.mode === 'act') {
    if (!Array.isArray(d.actions) || d.actions.length === 0)
      throw new QitosError('internal', `${agent}: an "act" decision needs at least one action`);
    for (const a of d.actions) {
      if (!a || typeof a.name !== 'string' || !a.name)
        throw new QitosError('internal', `${agent}: action without a tool name: ${JSON.stringify(a)}`);
      if (!a.id) a.id = newActionId();
      if (!a.args || typeof a.args !== 'object') a.args = {};
    }
  } else if (d.mode === 'final') {
    if (typeof d.answer !== 'string')
      throw new QitosError(
        'internal',
        `${agent}: a "final" decision needs a string answer, got ${JSON.stringify(d.answer)}`,
      );
  } else if (d.mode !== 'wait') {
    throw new QitosError(
      'internal',
      `${agent}: unknown decision mode ${JSON.stringify((d as { mode: unknown }).mode)}`,
    );
  }
  return d;
}
