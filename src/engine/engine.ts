import type { Action, ActionResult, ActContext, ActionRunner, Decision, EnvArtifact, Failure, Manifest, ModelTurn, Phase, SimpleDecision, State, StepRecord, StopReason, StopVerdict, Task, TaskInput } from '../core/index.js';
import { AbortedError, BaseState, ParseError, QitosError, Task as TaskSchema, bugStack, classifyError, errorMessage, formatZodIssue, newActionId, newId, totalTokens } from '../core/index.js';
import type { AgentContext, AgentModule } from './agent-module.js';
import { ActionExecutor } from './action-executor.js';
import { applyResults } from './apply-results.js';
import { searchBranch } from './branch-search.js';
import { critique } from './critique.js';
import type { EngineOptions, RunEvent, RunOptions, RunResult, StreamOptions } from './engine-options.js';
import { EventStream } from './event-stream.js';
import { firstUserFrame } from '../trace/first-user-frame.js';
import { takeModelTurn } from './model-turn.js';
import { openRun } from './open-run.js';
import { policyContext } from './policy-context.js';
import { watchStopSignals } from './signal-watcher.js';
import { withState, type RunServices, type RunStart, type RunState, type StepScratch } from './run-context.js';

export type { TraceOptions } from '../trace/index.js';
export type { EngineOptions, RunEvent, RunOptions, RunResult, StreamOptions } from './engine-options.js';

/** Milliseconds rounded to the microsecond (trace size). */
const round = (x: number) => Math.round(x * 1000) / 1000;

/**
 * Runs an AgentModule through the loop OBSERVE -> DECIDE -> ACT -> REDUCE -> CHECK_STOP, with RECOVER on errors.
 * One Engine may run many tasks, one after another or concurrently: each run has its own state, services and
 * policy instances.
 */
export class Engine<S extends State = State> {
  readonly agent: AgentModule<S, any>;
  private readonly executor: ActionRunner;

  constructor(readonly options: EngineOptions<S>) {
    this.agent = options.agent;
    this.executor = options.executor ?? new ActionExecutor(this.agent.tools, options.tools);
  }

  /** Runs one task to its end. Never throws for anything the run does: the result carries the stop reason. */
  run(input: TaskInput | string, opts: RunOptions<S> = {}): Promise<RunResult<S>> {
    return this.execute(input, opts, undefined);
  }

  /**
   * Runs one task and yields its events as they happen (the same typed events hooks get: stream deltas, tool
   * state moves, phases, policy decisions), then `{ type: 'result', result }`. A consumer slower than the run
   * holds it back: past `buffer` waiting events the run waits for the consumer before it goes on. Leaving the
   * loop early (`break`, `return`, a throw) ends the run `interrupted`, with its trace finalized before the
   * loop statement completes.
   */
  stream(input: TaskInput | string, opts: StreamOptions<S> = {}): AsyncIterableIterator<RunEvent<S>> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(opts.signal?.reason);
    if (opts.signal?.aborted) onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    let done: Promise<void> = Promise.resolve();
    const stream = new EventStream<RunEvent<S>>(opts.buffer ?? 256, async () => {
      controller.abort(new AbortedError('the stream consumer stopped reading'));
      await done;
    });
    done = this.execute(input, { ...opts, signal: controller.signal }, stream).then((result) => {
      opts.signal?.removeEventListener('abort', onAbort);
      stream.close({ type: 'result', result });
    });
    return stream;
  }

  private async execute(input: TaskInput | string, opts: RunOptions<S>, sink: EventStream<RunEvent<S>> | undefined): Promise<RunResult<S>> {
    const parsed = TaskSchema.safeParse(typeof input === 'string' ? { id: newId('task'), objective: input } : input);
    const task: Task = parsed.success ? parsed.data : { id: 'invalid', objective: '', inputs: {}, resources: {}, budget: {}, successCriteria: [], metadata: { input } };
    const { run: start, services } = openRun(this.options, task, sink);
    const stopWatching = this.watchSignals(services, opts.signal);
    try {
      if (!parsed.success) return await this.end(start, services, { reason: 'task_invalid', message: `invalid task: ${formatZodIssue(parsed.error.issues[0], '(task)')}` });
      start.state = opts.resumeFrom ? opts.resumeFrom.state : this.agent.initState(task);
      start.step = opts.resumeFrom?.step ?? 0;
      // Checked once per run: the loop relies on these fields (a NaN maxSteps would silently disable the budget).
      const base = BaseState.safeParse(start.state);
      if (!base.success) {
        const whose = opts.resumeFrom ? 'the state to resume from' : `${this.agent.name}.initState returned a state that`;
        throw new QitosError('internal', `${whose} is invalid: ${formatZodIssue(base.error.issues[0], '(state)')}`);
      }
      const run = withState(start, start.state);
      run.forced = opts.resumeFrom?.decision;
      services.recorder?.start(run);
      services.emit({ type: 'run_start', runId: run.runId, taskId: task.id, traceDir: services.traceDir });
      await services.env.setup?.(task);
      const missing = this.agent.tools.missingCapabilities(services.env);
      if (missing.length) {
        const what = missing.map((m) => `tool "${m.tool}" needs op group "${m.group}"`).join('; ');
        return await this.end(run, services, { reason: 'env_capability_mismatch', message: `env "${services.env.name}" lacks capabilities: ${what}` });
      }
      const budgetTimer = this.startBudgetTimer(run, services);
      try {
        await services.memory?.reset();
        for (const p of services.policies) p.start?.(policyContext(run, services));
        const ctx = agentContext(run, services);
        for (;;) {
          const verdict = await this.step(run, services, ctx);
          if (verdict) return await this.end(run, services, verdict);
        }
      } finally {
        if (budgetTimer) clearTimeout(budgetTimer);
      }
    } catch (err) {
      // Setup, initState or the engine itself failed: record it and end; never reject.
      start.failures.push({ step: start.step, kind: classifyError(err), message: errorMessage(err), fatal: true, ...whereThrown(err) });
      const reason: StopReason = services.signal.aborted ? 'interrupted' : 'unrecoverable_error';
      return await this.end(start, services, { reason, message: `${start.phase} failed: ${errorMessage(err)}` });
    } finally {
      stopWatching();
    }
  }

  /** One iteration of the loop. Returns a verdict when the run should stop. */
  private async step(run: RunState<S>, s: RunServices<S>, ctx: AgentContext): Promise<StopVerdict | undefined> {
    run.step++;
    run.state.step = run.step;
    const scratch: StepScratch = { rec: { step: run.step, startedAt: Date.now(), durationMs: 0, phases: {}, observation: null, decision: null, results: [], stateDiff: {} }, reply: undefined, system: undefined };
    const t0 = performance.now();
    let verdict: StopVerdict | undefined;
    try {
      this.throwIfAborted(s);
      // OBSERVE
      const observation = await this.phase(run, s, scratch, 'observe', () => this.agent.observe(run.state, s.env.observe?.(), ctx));
      scratch.rec.observation = observation ?? null;
      // DECIDE
      const decision = await this.phase(run, s, scratch, 'decide', () => this.decide(run, s, scratch, observation, ctx));
      // ACT
      const results = decision.mode === 'act' ? await this.phase(run, s, scratch, 'act', () => this.act(run, s, scratch, decision.actions)) : [];
      this.throwIfAborted(s);
      // REDUCE
      await this.phase(run, s, scratch, 'reduce', () => this.reduce(run, s, observation, decision, results, ctx));
      // CRITIQUE (only with critics)
      const critics = this.options.critics;
      const critiqued = critics?.length ? await this.phase(run, s, scratch, 'critique', () => critique(critics, run, s, decision, results)) : undefined;
      if (critiqued) scratch.rec.critiques = critiqued.records;
      // CHECK_STOP
      verdict = critiqued?.stop ?? (await this.phase(run, s, scratch, 'check_stop', () => this.checkStop(run, s, decision, results, critiqued?.retry ?? false)));
      run.recoveries = 0;
    } catch (err) {
      // RECOVER
      verdict = this.recover(run, s, scratch, err) ?? this.checkBudgets(run, s);
    }
    scratch.rec.durationMs = round(performance.now() - t0);
    if (verdict) {
      scratch.rec.stop = verdict;
      run.state.stopReason = verdict.reason; // before the diff, so the trace rebuilds the final state
    }
    s.recorder?.step(scratch.rec, run.state, scratch.system, scratch.tools);
    return verdict;
  }

  /** DECIDE: the agent's own decision, or a model turn; a branch is narrowed to one candidate by the search. */
  private async decide(run: RunState<S>, s: RunServices<S>, scratch: StepScratch, observation: unknown, ctx: AgentContext): Promise<Decision> {
    let decision: Decision | undefined;
    if (run.forced) {
      // A fork of a branch step acts on the candidate it was given.
      decision = run.forced;
      run.forced = undefined;
      s.emit({ type: 'policy', step: run.step, policy: 'fork', event: 'forced_decision', data: { mode: decision.mode } });
    } else decision = await this.agent.decide(run.state, observation, ctx);
    if (decision === undefined) {
      const turn = await takeModelTurn(run, s, observation, ctx);
      scratch.reply = turn.message;
      scratch.system = turn.system;
      scratch.tools = turn.sent.request.tools;
      recordTurn(scratch.rec, turn);
      if (turn.outcome instanceof ParseError) throw turn.outcome;
      decision = turn.outcome;
    }
    if (decision.mode === 'branch' && this.options.search) {
      const found = await searchBranch(this.options.search, decision, run, s);
      run.state = found.state;
      scratch.rec.branch = found.record;
      s.emit({ type: 'search', step: run.step, search: found.record.search, scores: found.record.scores, chosen: found.record.chosen, frontier: found.record.frontier });
      decision = found.decision;
    } else if (decision.mode === 'branch') {
      const { candidates, scores } = decision;
      const pick = this.options.selectBranch ?? ((c: SimpleDecision[]) => c[0]);
      const chosen = await pick(candidates, run.state);
      const index = candidates.indexOf(chosen);
      // Recorded like a search's choice, so `qitos fork --branch` can take another candidate of any branch step.
      scratch.rec.branch = { search: this.options.selectBranch ? 'selectBranch' : 'first', candidates, scores: candidates.map((_, i) => scores?.[i] ?? 0), chosen: { from: 'step', index, fromStep: run.step }, frontier: 0 };
      s.emit({ type: 'policy', step: run.step, policy: 'branch', event: 'selected', data: { candidates: candidates.length, chosen: chosen.mode, index } });
      decision = chosen;
    }
    scratch.rec.decision = checkDecision(decision, this.agent.name);
    return scratch.rec.decision;
  }

  /** ACT: the executor runs the actions; their results complete the reply's tool parts (the one way into the history). */
  private async act(run: RunState<S>, s: RunServices<S>, scratch: StepScratch, actions: Action[]): Promise<ActionResult[]> {
    const ctx: ActContext = {
      runId: run.runId,
      traceDir: s.traceDir,
      step: run.step,
      env: s.env,
      state: run.state,
      signal: s.signal,
      services: this.options.services ?? {},
      depth: s.depth,
      callModel: s.callModel,
      childLink: s.childLink,
      onState: s.onToolState,
    };
    const results = await this.executor.run(actions, ctx);
    scratch.rec.results = results;
    if (scratch.reply) applyResults(scratch.reply, results);
    return results;
  }

  private async reduce(run: RunState<S>, s: RunServices<S>, observation: unknown, decision: Decision, results: ActionResult[], ctx: AgentContext): Promise<void> {
    run.state = await this.agent.reduce(run.state, observation, decision, results, ctx);
    for (const p of s.policies) {
      if (!p.reduce) continue;
      const next = await p.reduce(policyContext(run, s, { decision, results }));
      if (next) run.state = next;
    }
  }

  /** CHECK_STOP; a final answer a critic sent back for a retry does not end the run. */
  private async checkStop(run: RunState<S>, s: RunServices<S>, decision: Decision, results: ActionResult[], retried: boolean): Promise<StopVerdict | undefined> {
    if (decision.mode === 'final' && !retried) {
      run.state.finalResult = decision.answer;
      return { reason: 'final', message: 'the agent gave a final answer' };
    }
    const own = this.agent.shouldStop(run.state);
    if (own) return { reason: 'agent_condition', message: typeof own === 'string' ? own : `${this.agent.name}.shouldStop returned true` };
    if (s.env.isTerminal?.()) return { reason: 'env_terminal', message: `env "${s.env.name}" reached a terminal state` };
    for (const p of s.policies) {
      if (!p.checkStop) continue;
      const v = await p.checkStop(policyContext(run, s, { decision, results }));
      if (v) return v;
    }
    return this.checkBudgets(run, s);
  }

  /** Budgets: the tightest of the state's maxSteps, the task's, the engine's and the parent's share. */
  private checkBudgets(run: RunState<S>, s: RunServices<S>): StopVerdict | undefined {
    const b = s.budget;
    const maxSteps = Math.min(run.state.maxSteps, b.maxSteps ?? Infinity);
    if (run.step >= maxSteps) return { reason: 'budget_steps', message: `step budget of ${maxSteps} reached` };
    const maxSeconds = b.maxSeconds ?? Infinity;
    const elapsed = (Date.now() - run.startedAt) / 1000;
    if (elapsed >= maxSeconds) return { reason: 'budget_time', message: `time budget of ${maxSeconds}s reached (${elapsed.toFixed(1)}s)` };
    const maxTokens = b.maxTokens ?? Infinity;
    const used = totalTokens(run.usage.tokens);
    if (used >= maxTokens) return { reason: 'budget_tokens', message: `token budget of ${maxTokens} reached (${used} used)` };
    const maxCost = b.maxCost ?? Infinity;
    if (run.usage.cost !== null && run.usage.cost >= maxCost) return { reason: 'budget_cost', message: `cost budget of ${maxCost} reached (${run.usage.cost.toFixed(4)} spent)` };
    return undefined;
  }

  /**
   * RECOVER: classify the error. Parse, model-transport, tool and env errors are fed back to the model as a
   * user message (and `state.metadata.lastError`) and the loop goes on, up to `maxRecoveries` consecutive
   * failures. Aborts end `interrupted`; bugs (internal errors), bad requests and context overflow end at once.
   */
  private recover(run: RunState<S>, s: RunServices<S>, scratch: StepScratch, err: unknown): StopVerdict | undefined {
    run.phase = 'recover';
    const kind = classifyError(err);
    const message = errorMessage(err);
    if (s.signal.aborted || kind === 'aborted') {
      scratch.rec.error = { kind: 'aborted', message, recovered: false };
      return this.abortVerdict(s);
    }
    const hookFailure = s.hooks.failure;
    const limit = this.options.maxRecoveries ?? 3;
    const fatal = hookFailure !== undefined || kind === 'internal' || kind === 'model_request' || kind === 'context_overflow' || run.recoveries >= limit;
    scratch.rec.error = { kind, message, recovered: !fatal };
    const where = whereThrown(err);
    run.failures.push({ step: run.step, kind, message, fatal, ...where });
    s.emit({ type: 'recover', step: run.step, kind, message, recoveries: run.recoveries, fatal, ...where });
    if (fatal) {
      if (kind === 'context_overflow') return { reason: 'context_overflow', message };
      const why = run.recoveries >= limit && kind !== 'internal' ? `gave up after ${limit} consecutive recoveries; last error (${kind}): ${message}` : `${kind} error in ${scratch.rec.decision ? 'step' : 'decide'} ${run.step}: ${message}`;
      return { reason: 'unrecoverable_error', message: why };
    }
    run.recoveries++;
    run.state.metadata.lastError = { step: run.step, kind, message };
    run.state.messages.push({
      role: 'user',
      info: { id: newId('msg'), role: 'user', time: { created: Date.now() }, agent: this.agent.name },
      parts: [{ id: newId('prt'), type: 'text', synthetic: true, text: `Error (${kind}) in step ${run.step}: ${message}` }],
    });
    return undefined;
  }

  private abortVerdict(s: RunServices<S>): StopVerdict {
    const reason = s.signal.reason;
    if (reason instanceof QitosError && reason.message.startsWith('budget_time')) return { reason: 'budget_time', message: reason.message.slice('budget_time: '.length) };
    return { reason: 'interrupted', message: `run interrupted${reason instanceof Error ? `: ${reason.message}` : ''}` };
  }

  /** Times a phase for the step record and tells hooks and a stream consumer it started and ended (waiting for a slow consumer). */
  private async phase<T>(run: RunState<S>, s: RunServices<S>, scratch: StepScratch, phase: Phase, fn: () => T | Promise<T>): Promise<T> {
    run.phase = phase;
    const observed = s.observed;
    if (observed) {
      const wait = s.emit({ type: 'phase_start', step: run.step, phase });
      if (wait) await wait;
    }
    const t0 = performance.now();
    const out = await fn();
    const ms = performance.now() - t0;
    scratch.rec.phases[phase] = round(ms);
    if (observed) {
      const wait = s.emit({ type: 'phase_end', step: run.step, phase, durationMs: ms });
      if (wait) await wait;
      if (s.hooks.failure) throw s.hooks.failure;
    }
    return out;
  }

  private throwIfAborted(s: RunServices<S>): void {
    if (s.signal.aborted) throw new AbortedError();
  }

  // ---- run tear-down ----

  /** Links the external signal and the process's stop signals (when asked) to the run's own controller; returns the clean-up. */
  private watchSignals(s: RunServices<S>, external: AbortSignal | undefined): () => void {
    const controller = s.abort;
    const onAbort = () => controller.abort(external?.reason ?? new AbortedError());
    if (external?.aborted) onAbort();
    external?.addEventListener('abort', onAbort, { once: true });
    const unwatch = this.options.handleSigint ? watchStopSignals((sig) => controller.abort(new AbortedError(sig)), () => s.env.kill?.()) : undefined;
    return () => {
      external?.removeEventListener('abort', onAbort);
      unwatch?.();
    };
  }

  /** The time budget also aborts a step that hangs (the run then ends `budget_time`, not `interrupted`). */
  private startBudgetTimer(run: RunState<S>, s: RunServices<S>): NodeJS.Timeout | undefined {
    const secs = s.budget.maxSeconds;
    if (secs === undefined) return undefined;
    const controller = s.abort;
    const t = setTimeout(() => controller.abort(new QitosError('aborted', `budget_time: time budget of ${secs}s reached`)), Math.max(0, secs * 1000 - (Date.now() - run.startedAt)));
    t.unref?.();
    return t;
  }

  private async end(run: RunStart<S>, s: RunServices<S>, verdict: StopVerdict): Promise<RunResult<S>> {
    run.phase = 'end';
    if (run.state) {
      run.state.stopReason = verdict.reason;
      if (verdict.reason !== 'final' && run.state.finalResult === undefined) run.state.finalResult = null;
    }
    // Artifacts first: close may remove what they are made from (a repository's temporary worktree).
    let artifacts: EnvArtifact[] = [];
    try {
      artifacts = (await s.env.artifacts?.()) ?? [];
    } catch (err) {
      run.failures.push({ step: run.step, kind: 'env', message: `env.artifacts failed: ${errorMessage(err)}`, fatal: false });
    }
    try {
      await s.env.close?.();
    } catch (err) {
      run.failures.push({ step: run.step, kind: 'env', message: `env.close failed: ${errorMessage(err)}`, fatal: false });
    }
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
    s.emit({ type: 'run_end', runId: run.runId, stopReason: verdict.reason, finalResult: summary.finalResult, steps: run.step });
    try {
      s.recorder?.finish(run, verdict, summary, artifacts);
    } catch (err) {
      // The trace cannot be written (disk full, folder removed): the result still says how the run ended.
      run.failures.push({ step: run.step, kind: 'trace', message: `could not write the trace in ${s.traceDir}: ${errorMessage(err)}`, fatal: false });
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
      traceDir: s.recorder?.wrote ? s.traceDir : null,
      failures: run.failures,
    };
  }
}

/** What agent methods are told about the run (one object per run; `step` follows the loop). */
function agentContext<S extends State>(run: RunState<S>, s: RunServices<S>): AgentContext {
  return {
    runId: run.runId,
    get step() {
      return run.step;
    },
    depth: s.depth,
    signal: s.signal,
    callModel: s.callModel,
    memory: s.memory,
    emit: (event, data) => void s.emit({ type: 'agent', step: run.step, agent: s.agent.name, event, data }),
  };
}

/** Where a bug was thrown (its stack and first frame in the user's code), for its failure record; empty for classified errors. */
function whereThrown(err: unknown): Pick<Failure, 'at' | 'stack'> {
  const stack = bugStack(err);
  if (!stack) return {};
  const at = firstUserFrame(stack);
  return at ? { at, stack } : { stack };
}

/** The step's model record: what was sent (hashes), the response, latency, tokens and cost (the trace adds the system prompt when it changed). */
function recordTurn(rec: StepRecord, turn: ModelTurn): void {
  rec.model = { hashes: turn.sent.hashes, messageCount: turn.sent.request.messages.length, response: turn.response, latencyMs: turn.latencyMs };
  rec.tokens = turn.response.usage;
  rec.cost = turn.response.cost;
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
