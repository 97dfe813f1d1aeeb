import type { Approver, Hook, Model, SimpleDecision, State, StepRecord, Task } from '../core/index.js';
import type { RunResult } from '../engine/engine.js';
import type { EngineOptions } from '../engine/engine-options.js';
import { checkRecordedStateVersion, recordedStateVersion } from '../engine/resumed-state.js';
import { isWorkflowManifest, type WorkflowState } from '../kit/workflow/index.js';
import {
  ReplayApprovals,
  ReplayEdits,
  ReplayExecutor,
  ReplayMemory,
  ReplayModel,
  stateAtStep,
} from '../trace/index.js';
import { loadTraceKey } from '../trace/trace-key.js';
import { AppError } from './app-error.js';
import type { AppIO } from './app-io.js';
import { buildAgent, buildEngine, configuredModel } from './build-engine.js';
import type { QitosConfig } from './config-schema.js';
import { effectiveConfig, type ConfigFlags } from './effective-config.js';
import { withMcp } from './mcp-setup.js';
import {
  checkRecordedModule,
  openRecordedRun,
  recordedRunAgent,
  type RecordedRun,
  type RecordedSuite,
} from './recorded-run.js';
import { toBenchAgent, type BenchAgent, type SuiteProvider, type SuiteRunContext } from '../bench/index.js';
import type { AgentModule } from '../engine/agent-module.js';
import type { LoadedAgent } from './agent-loader.js';
import { userErrors, userErrorsAsync } from './bench-run.js';
import { resolveModel } from './model-resolver.js';
import { moduleSha256 } from './module-hash.js';
import { suiteProviders } from './suite-providers.js';
import { importUserModule } from './user-module.js';
import { resolve } from 'node:path';
import { checkTraceTrust, traceUses, type TrustFlags } from './trace-trust.js';
import { recordedWorkflow, replayWorkflow } from './workflow-replay.js';

/**
 * How a recorded run runs again. `replay`: the recorded model outputs, tool results, memory reads, answers to asks
 * and debugger edits are served back, and what differs is drift (refused unless allowed). `debug`: the same under
 * the step debugger, drift allowed (an edit changes what follows). `fork`: the run goes on live (its model, its
 * tools) from the state after a recorded step.
 */
export type ReplayMode = 'replay' | 'fork' | 'debug';

/** The step debugger of a `debug` session. */
export type DebugHandlers = Pick<EngineOptions<State>, 'breakpoints' | 'onBreak' | 'breakCondition'>;

/** What opens a replay session: the mode, the flags that may replace what the trace records, and the run's own parts. */
export interface ReplaySessionOptions {
  mode: ReplayMode;
  /** The trust flags (`--agent`, `--trust-trace`, ...), `--export`, and for replay `--tools` / `--live-tools` / `--allow-drift`. */
  flags: TrustFlags & { export?: string; tools?: string; allowDrift?: boolean };
  /** Settings over the recorded config (`--config`, `--set`, `--workspace`, `--permission`, `--trace-dir`, ...). */
  settings: ConfigFlags;
  hooks?: Hook[];
  /** fork: who answers permission asks (a replay serves the recorded answers). */
  onApproval?: Approver;
  /** debug: the debugger's breakpoints and handler (recorded edits join them). */
  debug?: DebugHandlers;
  /** fork: the new run starts after step `at` (with `branch`: runs step `at` again on that recorded candidate). */
  fork?: { at: number; branch?: number; task?: string };
  /** The benchmarks whose trials can be rebuilt (default: `suiteProviders()`). */
  providers?: readonly SuiteProvider[];
}

/** What serves a recording back in a replay (or debug): each reports what drifted after the run. */
export interface ServedRecording {
  model: ReplayModel;
  /** Undefined with `--live-tools`: the calls run again. */
  executor: ReplayExecutor | undefined;
  memory: ReplayMemory;
  approvals: ReplayApprovals;
  edits: ReplayEdits;
}

/** A recorded run opened to run again, the one way `qitos replay`, `fork` and `debug` rebuild it. */
export interface ReplaySession {
  mode: ReplayMode;
  recorded: RecordedRun;
  /** The config the new run takes: the recorded one (less what a trace from elsewhere may not choose) under the settings. */
  config: QitosConfig;
  /** Whether the run is a workflow's (rebuilt from the workflow its trace records, not from a module). */
  workflow: boolean;
  /** replay and debug: what serves the recording. */
  served: ServedRecording | undefined;
  /** The step the new run starts after (0: from the start), and the recorded candidate a fork acts on. */
  after: number;
  candidate: SimpleDecision | undefined;
  /** Rebuilds the agent (its module, or the recorded workflow) and its engine through `buildEngine`, and runs it. */
  run(): Promise<RunResult<State>>;
}

/** Opens a recorded run (`path`: its trace folder) to replay, fork or debug it. Nothing it names is loaded before `run`. */
export async function replaySession(io: AppIO, path: string, options: ReplaySessionOptions): Promise<ReplaySession> {
  const { mode, flags } = options;
  const recorded = await openRecordedRun(io, path, flags);
  const { trace, manifest: m } = recorded;
  const workflow = recordedWorkflow(m, trace.dir);
  if (mode === 'fork' && isWorkflowManifest(m)) {
    const file = typeof m.agent.config?.file === 'string' ? m.agent.config.file : '<workflow.yaml>';
    throw new AppError(
      `trace ${trace.dir} is a workflow run: fork it from a node with \`qitos workflow fork ${trace.dir} ${file} ` +
        `--at <node>\` (its tools and models come from you, not the trace)`,
    );
  }
  if (workflow && flags.agent)
    throw new AppError(
      `--agent: a workflow run is rebuilt from the workflow its trace records; ${mode} it without --agent`,
    );
  if (!workflow && flags.tools)
    throw new AppError(
      `--tools: only a workflow run takes the module of its tools; this trace is a run of ${m.agent.name}`,
    );
  const config = await effectiveConfig(recorded.config, options.settings, io.cwd);
  const served = mode === 'fork' ? undefined : serveRecording(recorded, mode === 'debug' || !!flags.allowDrift, flags);
  const start = startingPoint(recorded, options.fork);
  const session: ReplaySession = {
    mode,
    recorded,
    config,
    workflow: workflow !== undefined,
    served,
    ...start,
    run: () =>
      workflow
        ? runWorkflow(io, session, options, workflow)
        : recorded.suite
          ? runTrial(io, session, options, recorded.suite, start.state as State | undefined)
          : runAgent(io, session, options, start.state as State | undefined),
  };
  return session;
}

/** The five pieces that serve a recording back. */
function serveRecording(run: RecordedRun, allowDrift: boolean, flags: { liveTools?: boolean }): ServedRecording {
  const { steps, events } = run.trace;
  return {
    model: new ReplayModel(steps, { id: run.manifest.model?.id ?? 'replay:none', allowDrift, events }),
    executor: flags.liveTools ? undefined : new ReplayExecutor(steps, { allowDrift }),
    // The recorded memory reads: the replay sees what the run saw, whatever the notes file holds now.
    memory: new ReplayMemory(events, { allowDrift }),
    // Recorded answers to permission asks: a replay asks no one.
    approvals: new ReplayApprovals(events),
    // Decisions edited and calls skipped at a breakpoint (`qitos debug`) are made again at the same steps.
    edits: new ReplayEdits(steps),
  };
}

/**
 * Where the new run starts. A replay of a fork (or of a resumed run) starts where the recorded run started, from
 * the same recorded state; a fork starts after step `at` (with `branch`: before it, acting on that candidate).
 */
function startingPoint(
  run: RecordedRun,
  fork: ReplaySessionOptions['fork'],
): { after: number; candidate: SimpleDecision | undefined; state: unknown } {
  const { trace, manifest: m } = run;
  if (!fork) {
    const initial = m.initialState as { step?: unknown } | null;
    const after = initial && typeof initial.step === 'number' && initial.step > 0 ? initial.step : 0;
    return { after, candidate: undefined, state: after ? stateAtStep(trace, after) : undefined };
  }
  const candidate =
    fork.branch === undefined ? undefined : branchCandidate(trace.steps, trace.dir, fork.at, fork.branch);
  const after = candidate ? fork.at - 1 : fork.at;
  const state = stateAtStep(trace, after);
  state.stopReason = null;
  state.finalResult = null;
  if (fork.task !== undefined) {
    if (!fork.task.trim()) throw new AppError('--task must not be empty');
    state.task = fork.task;
  }
  return { after, candidate, state };
}

/** Candidate `j` of the branch decision recorded at step `at`, or a one-line error saying why there is none. */
function branchCandidate(steps: readonly StepRecord[], dir: string, at: number, j: number): SimpleDecision {
  const rec = steps.find((s) => s.step === at);
  if (!rec) throw new AppError(`trace ${dir} has no step ${at}`);
  if (!rec.branch)
    throw new AppError(
      `step ${at} of ${dir} is not a branch step (it recorded no candidates), so --branch has nothing to choose from`,
    );
  const candidate = rec.branch.candidates[j];
  if (!candidate)
    throw new AppError(
      `step ${at} of ${dir} has candidates 0..${rec.branch.candidates.length - 1}; --branch ${j} is not one of them`,
    );
  return candidate;
}

/** The debugger the run gets: the session's (debug), with the recorded edits made again at their steps. */
function debugHandlers(session: ReplaySession, options: ReplaySessionOptions): DebugHandlers | undefined {
  const edits = session.served?.edits;
  if (session.mode === 'debug' && options.debug)
    return {
      breakpoints: [...(options.debug.breakpoints ?? []), ...(edits?.breakpoints ?? [])],
      onBreak: edits ? edits.onBreak(options.debug.onBreak) : options.debug.onBreak,
      breakCondition: options.debug.breakCondition,
    };
  return edits?.recorded ? { breakpoints: edits.breakpoints, onBreak: edits.onBreak() } : undefined;
}

/** A run of an agent module: the recorded (or `--agent`) module, built and run as `qitos run` builds it. */
async function runAgent(
  io: AppIO,
  session: ReplaySession,
  options: ReplaySessionOptions,
  state: State | undefined,
): Promise<RunResult<State>> {
  const { recorded, config, served, mode } = session;
  const { trace, manifest: m } = recorded;
  const loaded = await recordedRunAgent(io, recorded, config, options.flags);
  const model: Model | undefined = served ? served.model : await configuredModel(config, io.cwd, io.env);
  const agent = buildAgent(loaded, config, model);
  try {
    checkRecordedStateVersion(agent, m);
  } catch (err) {
    throw new AppError(`cannot ${mode} ${trace.dir}: ${(err as Error).message}`);
  }
  if (mode === 'fork') checkForkModel(io, recorded, model, agent.model);
  return runEngine(io, session, options, state, { agent, loaded, model });
}

/** What a rebuilt run runs: its agent (and the module it is recorded as), model, and a benchmark trial's own parts. */
interface RebuiltAgent {
  agent: AgentModule<State, unknown>;
  loaded: LoadedAgent;
  model: Model | undefined;
  trial?: Pick<BenchAgent, 'env' | 'policies' | 'hooks' | 'services'> & { suite: RecordedSuite };
}

/** Builds the run's engine through `buildEngine` and runs it from the session's starting point. */
async function runEngine(
  io: AppIO,
  session: ReplaySession,
  options: ReplaySessionOptions,
  state: State | undefined,
  { agent, loaded, model, trial }: RebuiltAgent,
): Promise<RunResult<State>> {
  const { recorded, config, served, mode } = session;
  const { trace, manifest: m } = recorded;
  const task = { ...(m.task as unknown as Task) };
  if (options.fork?.task !== undefined) task.objective = options.fork.task;
  const debug = debugHandlers(session, options);
  const onApproval = served ? served.approvals.approver : options.onApproval;
  // The recorded MCP servers are started again: their tool schemas are part of every request, and --live-tools calls them.
  return withMcp(config, io, async (mcp) => {
    const engine = await buildEngine({
      agent,
      loaded,
      config,
      cwd: io.cwd,
      warn: (l) => io.err(l),
      ...(model ? { model } : {}),
      ...(served?.executor ? { executor: served.executor } : {}),
      ...(served?.memory.recorded ? { memory: served.memory } : {}),
      ...(trial?.env ? { env: trial.env } : {}),
      ...(trial?.policies ? { policies: trial.policies } : {}),
      ...(trial?.services ? { services: trial.services } : {}),
      ...(trial ? { suite: trial.suite } : {}),
      parent:
        mode === 'fork'
          ? { runId: m.runId, path: trace.dir, kind: 'fork', atStep: session.after }
          : { runId: m.runId, path: trace.dir, kind: 'replay' },
      hooks: [...(trial?.hooks ?? []), ...(options.hooks ?? [])],
      ...(mcp ? { mcp } : {}),
      signingKey: await loadTraceKey(io.env, { create: true }),
      redactor: io.redactor,
      ...(onApproval ? { onApproval } : {}),
      ...(debug ? { debug } : {}),
    });
    const resumeFrom = state
      ? {
          state,
          step: session.after,
          stateVersion: recordedStateVersion(m),
          ...(session.candidate ? { decision: session.candidate } : {}),
        }
      : undefined;
    return engine.run(task, resumeFrom ? { resumeFrom } : {});
  });
}

/**
 * A trial of a benchmark's suite (tau-bench): its provider opens the recorded suite again and makes the trial's agent
 * and env as the bench run did. A replay serves every recorded model call (the agent's and, by purpose, the
 * simulated customer's); a fork calls the models the trial named. A module agent is checked against its sha-256.
 */
async function runTrial(
  io: AppIO,
  session: ReplaySession,
  options: ReplaySessionOptions,
  suite: RecordedSuite,
  state: State | undefined,
): Promise<RunResult<State>> {
  const { recorded, config, served } = session;
  const { trace, manifest: m } = recorded;
  const providers = options.providers ?? suiteProviders();
  const provider = providers.find((p) => p.name === suite.provider);
  if (!provider)
    throw new AppError(
      `trace ${trace.dir} is a trial of a "${suite.provider}" suite, which this qitos-ts does not know`,
    );
  if (options.flags.agent)
    throw new AppError(`--agent: a ${provider.name} trial is rebuilt from the settings its trace records`);
  const again = userErrors(() => provider.reopen(suite.record));
  const module = again.module ? resolve(io.cwd, again.agent) : undefined;
  const uses = traceUses(
    module ? m : { ...m, agent: { ...m.agent, module: undefined } },
    recorded.recorded,
    config,
    options.flags,
  );
  checkTraceTrust(io, trace.dir, recorded.untrusted, uses, options.flags);
  if (module) await checkRecordedModule(io, m, trace.dir, module, options.flags);
  const opened = await userErrorsAsync(() => provider.open(again.name, again.options, io.cwd));
  const task = opened.suite.tasks.find((t) => t.id === m.task.id);
  if (!task) throw new AppError(`${again.name} has no task "${String(m.task.id)}" (the trial's task)`);
  const models = new Map<string, Promise<Model>>();
  const ctx: SuiteRunContext = {
    cwd: io.cwd,
    agent: again.agent,
    export: undefined,
    modelId: config.model?.id,
    maxSteps: config.engine?.maxSteps,
    // A replay serves every call from the recording (by purpose); a fork builds the models the trial named.
    model: (id) => {
      if (served) return Promise.resolve(served.model);
      if (!models.has(id))
        models.set(id, resolveModel(id === config.model?.id ? config.model : { id }, io.cwd, io.env));
      return models.get(id)!;
    },
    importModule: importUserModule,
    moduleSha256,
  };
  const run = await userErrorsAsync(() => opened.prepare(ctx));
  const model = served?.model ?? run.model;
  const built = toBenchAgent(
    await userErrorsAsync(async () =>
      run.agentFactory({ task, epoch: 0, model, signal: new AbortController().signal }),
    ),
  );
  const loaded: LoadedAgent = {
    AgentClass: built.agent.constructor as LoadedAgent['AgentClass'],
    module: m.agent.module ?? run.agentLabel,
    export: m.agent.export ?? 'default',
    absPath: module ?? '',
    ...(m.agent.sha256 ? { sha256: m.agent.sha256 } : {}),
  };
  try {
    return await runEngine(io, session, options, state, {
      agent: built.agent as AgentModule<State, unknown>,
      loaded,
      model,
      trial: { ...built, suite },
    });
  } finally {
    await built.dispose?.();
  }
}

/** A fork needs a model its config can build, and says so when its requests go elsewhere than the parent's did. */
function checkForkModel(io: AppIO, run: RecordedRun, model: Model | undefined, agentModel: Model | undefined): void {
  const m = run.manifest;
  // A run built in code (not by `qitos run`) records the model's id but not how to rebuild it.
  if (!model && !agentModel && m.model?.id)
    throw new AppError(
      `trace ${run.trace.dir} ran on model ${m.model.id}, which its recorded config does not name ` +
        `(it was not started with \`qitos run\`); pass --model`,
    );
  const endpoint = (model ?? agentModel)?.info?.endpoint;
  // The same model id at another address may be another server (a proxy, a local copy): said before it runs.
  if (m.model?.endpoint && endpoint && endpoint !== m.model.endpoint)
    io.err(`warning: the fork's model requests go to ${endpoint}, the parent's went to ${m.model.endpoint}\n`);
}

/** A replay (or debug) of a workflow run: its agent rebuilt from the workflow the trace records, as replay does. */
async function runWorkflow(
  io: AppIO,
  session: ReplaySession,
  options: ReplaySessionOptions,
  workflow: NonNullable<ReturnType<typeof recordedWorkflow>>,
): Promise<RunResult<State>> {
  const { recorded, config, served } = session;
  const { trace, manifest: m } = recorded;
  // A workflow run has no agent module: what the trust check weighs is what the trace names besides one.
  checkTraceTrust(
    io,
    trace.dir,
    recorded.untrusted,
    traceUses(m, recorded.recorded, config, options.flags),
    options.flags,
  );
  const debug = debugHandlers(session, options);
  return (await replayWorkflow(io, {
    workflow,
    trace,
    config,
    model: served!.model,
    executor: served!.executor,
    toolsModule: options.flags.tools,
    parent: { runId: m.runId, path: trace.dir, kind: 'replay' },
    hooks: options.hooks ?? [],
    signingKey: await loadTraceKey(io.env, { create: true }),
    onApproval: served!.approvals.approver,
    ...(session.after
      ? { resumeFrom: { state: stateAtStep(trace, session.after) as WorkflowState, step: session.after } }
      : {}),
    ...(debug ? { debug: debug as NonNullable<Parameters<typeof replayWorkflow>[1]['debug']> } : {}),
  })) as RunResult<State>;
}
