import { getMaxListeners, setMaxListeners } from 'node:events';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type {
  Approver,
  Budget,
  CallModel,
  CustomPartKinds,
  Env,
  Model,
  ModelStreamEvent,
  InheritedPermission,
  ParentLink,
  Parser,
  Policy,
  State,
  Task,
  Tokens,
  TraceTap,
} from '../core/index.js';
import {
  ModelChain,
  PermissionRules,
  QitosError,
  addCost,
  addTokens,
  emptyTokens,
  newId,
  newModelCall,
  nullEnv,
  tightestBudget,
  totalTokens,
  unwrapModel,
} from '../core/index.js';
import { RunRecorder, type RunDescription, type TraceOptions } from '../trace/run-recorder.js';
import type { AgentModule } from './agent-module.js';
import type { EngineOptions } from './engine-options.js';
import { ModelInputBuilder } from './model-input.js';
import type { RunServices, RunStart } from './run-context.js';
import { RunEvents, type EventSink } from './run-events.js';
import { RunMemoryAccess } from './run-memory-access.js';
import { accountingMiddleware, policyMiddleware, sentHashesMiddleware } from './run-middleware.js';
import {
  DEFAULT_APPROVAL_TIMEOUT_MS,
  PermissionGate,
  envCommands,
  envRealPath,
  workspaceRoot,
} from './permission-gate.js';

/** The run signal's lifelong 'abort' listener (see runAbortController): its work is to be there. */
const holdListenerEntry = (): void => undefined;

/**
 * The run's abort controller. Tool calls, permission asks and model requests each add an 'abort' listener to its signal
 * and remove it when they end. Node drops the signal's 'abort' entry from its listener Map when the last listener
 * goes, and once the signal is in V8's old generation every drop and re-add rehashes that Map into a new
 * old-generation table: ~150 B per step of garbage only a full GC frees, which grew Node 24's RSS through a long run
 * (docs/performance.md, Kernel). One listener held for the run's life keeps the entry, so per-call listeners cost only
 * young garbage; it does not count towards Node's leak warning (ten tool calls at once stay as quiet as before).
 */
function runAbortController(): AbortController {
  const controller = new AbortController();
  controller.signal.addEventListener('abort', holdListenerEntry);
  // 0 is "no limit" (a signal's default on Node 22 and later): it stays so; a limit gets one more for this listener.
  const max = getMaxListeners(controller.signal);
  if (max > 0) setMaxListeners(max + 1, controller.signal);
  return controller;
}

/**
 * Sets a run up: its state before `initState`, and its services: the trace recorder, the hook bus, this run's
 * policy instances (`Policy.forRun`), the model chain (the engine's middleware, the user's, the model's own
 * layers, composed once) and the memory.
 */
export function openRun<S extends State>(
  options: EngineOptions<S>,
  task: Task,
  sink: EventSink | undefined,
): { run: RunStart<S>; services: RunServices<S> } {
  const agent = options.agent;
  const controller = runAbortController();
  const runId = options.runId ?? newRunId();
  const traceOpts = options.trace === false ? undefined : (options.trace ?? {});
  const traceDir = traceOpts ? resolve(traceOpts.dir ?? 'traces', runId) : null;
  const run = newRunStart<S>(runId, task);
  const model = options.model ?? agent.model;
  const env = options.env ?? nullEnv;
  const policies = (options.policies ?? []).map((p) => p.forRun?.({ runId }) ?? p);
  const rules = permissionRules(options);
  const setup = { model, env, policies, budget: tightestBudget(task.budget, options.budget, options.parent?.budget) };
  const recorder = traceDir && traceOpts ? newRecorder(traceDir, traceOpts, options, setup, rules) : undefined;
  const events = new RunEvents(run, options.hooks ?? [], recorder, sink, !!options.failOnHookError, options.redactor);
  let chain: ModelChain | undefined;
  const base = model ? unwrapModel(model) : undefined;
  const callModel: CallModel = (request, opts = {}) => {
    const onEvent =
      opts.onEvent ??
      (opts.stream
        ? (event: ModelStreamEvent) => events.emit({ type: 'model_event', step: run.step, event })
        : undefined);
    const callOptions = { signal: opts.signal ?? controller.signal, onEvent };
    if (opts.model) {
      // Composed per call (rare: summaries): the run's accounting and the user's middleware, then the model's own.
      const other = unwrapModel(opts.model);
      return new ModelChain(
        [accountingMiddleware(run, services), ...userMiddleware, ...other.middleware],
        other.base,
      ).generate(newModelCall(opts.purpose ?? 'direct', other.base, request, callOptions));
    }
    if (!chain || !base)
      return Promise.reject(
        new QitosError('model_request', `run ${runId} has no model to call: give the agent or the engine one`),
      );
    return chain.generate(newModelCall(opts.purpose ?? 'direct', base.base, request, callOptions));
  };
  const memory = typeof options.memory === 'function' ? options.memory() : options.memory;
  const parser = agent.parser;
  const services: RunServices<S> = {
    runId,
    agent,
    model,
    env,
    policies,
    events,
    recorder,
    traceDir,
    parent: options.parent,
    depth: options.parent?.depth ?? 0,
    input: modelInputBuilder(parser, options.partKinds),
    signal: controller.signal,
    abort: controller,
    chain: undefined,
    callModel,
    memory:
      memory &&
      new RunMemoryAccess(memory, () => ({ runId, step: run.step, signal: controller.signal, callModel }), events),
    memoryInput: options.memoryInput,
    budget: setup.budget,
    ...gates(options, rules, run, env, events, controller.signal),
    childLink: () => childLink(run, services, traceOpts?.tap ?? options.parent?.tap, inherited(options, rules)),
    onToolState: (action, state) =>
      events.emit({ type: 'tool_state', step: run.step, callId: action.id, tool: action.name, state }),
  };
  const userMiddleware = options.middleware?.length ? [...options.middleware, sentHashesMiddleware(services)] : [];
  if (base) {
    const own = policies.some((p) => p.beforeModel || p.onModelError) ? [policyMiddleware(run, services)] : [];
    chain = services.chain = new ModelChain(
      [...own, accountingMiddleware(run, services), ...userMiddleware, ...base.middleware],
      base.base,
    );
  }
  return { run, services };
}

/** What a run was set up with, as its manifest describes it. */
interface RunSetup<S extends State> {
  model: Model | undefined;
  env: Env;
  policies: readonly Policy<S>[];
  /** What the loop holds the run to: the tightest of the task's, the engine's and the parent's share. */
  budget: Budget;
}

/** The trace recorder of a traced run; its manifest describes the run and its permission rules. */
function newRecorder<S extends State>(
  traceDir: string,
  traceOpts: TraceOptions,
  options: EngineOptions<S>,
  run: RunSetup<S>,
  rules: PermissionRules | undefined,
): RunRecorder {
  const manifest = describeRun(options, traceOpts, run);
  return new RunRecorder(
    traceDir,
    { ...manifest, ...(rules ? { permission: rules.rules } : {}) },
    {
      ...traceOpts,
      tap: traceOpts.tap ?? options.parent?.tap,
      redactor: options.redactor,
      onManifest: options.parent?.traced?.bind(options.parent),
    },
  );
}

/** A run id that sorts by start time: `20250101T120000-<random>`. */
function newRunId(): string {
  return `${new Date().toISOString().replace(/[-:]/g, '').replace(/\..+/, '')}-${newId('run').slice(4)}`;
}

/** The run's model input builder: the parser's way of writing text-parsed results, the user's part kinds. */
function modelInputBuilder(parser: Parser | undefined, partKinds: CustomPartKinds | undefined): ModelInputBuilder {
  return new ModelInputBuilder(
    parser?.formatResults ? (results) => parser.formatResults!(results) : undefined,
    partKinds,
  );
}

/**
 * The engine's permission rules compiled for a run (`~` is the home folder); without rules of its own, a sub-run's
 * parent's; else undefined.
 */
function permissionRules<S extends State>(options: EngineOptions<S>): PermissionRules | undefined {
  return options.permission === undefined
    ? options.parent?.permission?.rules
    : new PermissionRules(options.permission, { home: options.home ?? homedir() });
}

/** What a sub-run of this run is held to, unless it brings its own (`ParentLink.permission`). */
function inherited<S extends State>(
  options: EngineOptions<S>,
  rules: PermissionRules | undefined,
): InheritedPermission {
  return {
    rules,
    approver: approverOf(options),
    timeoutMs: options.approvalTimeoutMs ?? options.parent?.permission?.timeoutMs,
  };
}

/** The run's approver: its own, else (a sub-run) its parent's. */
function approverOf<S extends State>(options: EngineOptions<S>): Approver | undefined {
  return options.onApproval ?? options.parent?.permission?.approver;
}

/**
 * The run's permission gate (with rules) and what asks a human for its agent (`AgentContext.askHuman`): the same
 * gate, or one without rules when the run has only an approver; neither without rules and approver.
 */
function gates<S extends State>(
  options: EngineOptions<S>,
  rules: PermissionRules | undefined,
  run: RunStart<S>,
  env: Env,
  events: RunEvents,
  signal: AbortSignal,
): { permission: PermissionGate | undefined; asker: PermissionGate | undefined } {
  if (!rules && !approverOf(options)) return { permission: undefined, asker: undefined };
  const gate = permissionGate(options, rules ?? new PermissionRules({}), run, env, events, signal);
  return { permission: rules && gate, asker: gate };
}

/** The run's permission gate: its rules, approver and timeout, the env's workspace for external paths. */
function permissionGate<S extends State>(
  options: EngineOptions<S>,
  rules: PermissionRules,
  run: RunStart<S>,
  env: Env,
  events: RunEvents,
  signal: AbortSignal,
): PermissionGate {
  return new PermissionGate({
    runId: run.runId,
    rules,
    approver: approverOf(options),
    timeoutMs: options.approvalTimeoutMs ?? options.parent?.permission?.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
    root: () => workspaceRoot(env),
    commands: (line) => envCommands(env, line),
    realPath: (path) => envRealPath(env, path),
    signal,
    step: () => run.step,
    emit: (e) => events.emit(e),
    tool: (name) => options.agent.tools.get(name),
  });
}

/** A run before its state: step 0, no usage, no failures. */
function newRunStart<S extends State>(runId: string, task: Task): RunStart<S> {
  return {
    runId,
    task,
    state: undefined,
    step: 0,
    phase: 'init',
    startedAt: Date.now(),
    usage: { tokens: emptyTokens(), cost: 0, modelCalls: 0 },
    usageByPurpose: {},
    lastStepTokens: undefined,
    recoveries: 0,
    failures: [],
    policyEvents: {},
    criticRetries: {},
    searchSnapshots: new Map(),
    forced: undefined,
  };
}

/** What the manifest records about how a run is set up. */
function describeRun<S extends State>(
  options: EngineOptions<S>,
  trace: TraceOptions,
  { model, env, policies, budget }: RunSetup<S>,
): RunDescription {
  const agent: AgentModule<S, unknown> = options.agent;
  const parent = options.parent;
  return {
    agent: {
      name: agent.name,
      ...trace.agentSource,
      ...(agent.variant ? { variant: agent.variant } : {}),
      config: agent.config,
      stateVersion: agent.stateVersion,
    },
    model: model
      ? { id: model.id, params: agent.modelParams, ...(model.info?.endpoint ? { endpoint: model.info.endpoint } : {}) }
      : null,
    parser: agent.parser?.name ?? null,
    tools: agent.tools.names,
    toolSpecs: agent.tools.specs(),
    policies: policies.map((p) => p.name),
    env: { name: env.name, ...(env.sandbox ? { sandbox: env.sandbox } : {}) },
    seed: options.seed ?? agent.modelParams.seed ?? null,
    // What the loop holds the run to: the tightest of the task's, the engine's and the parent's share.
    budget,
    parent: parent
      ? {
          runId: parent.runId,
          path: parent.path,
          kind: parent.kind,
          ...(parent.atStep !== undefined ? { atStep: parent.atStep } : {}),
          ...(parent.depth !== undefined ? { depth: parent.depth } : {}),
          ...(parent.budget ? { budget: parent.budget } : {}),
        }
      : null,
    ...(trace.config ? { config: trace.config } : {}),
    systemPrompt: (state) => agent.buildSystemPrompt(state as S),
  };
}

/**
 * The link a sub-run of `run` gets: `run` as its parent, one level deeper, what is left of the run's token, cost
 * and time budget as its share, and its usage (tokens, cost, model calls) added to the run's (and on up the chain
 * of parents). `tap`: the run's trace tap, which a traced sub-run's records go to as well.
 */
export function childLink<S extends State>(
  run: RunStart<S>,
  services: Pick<RunServices<S>, 'traceDir' | 'depth' | 'budget' | 'parent' | 'recorder'>,
  tap?: TraceTap,
  permission?: InheritedPermission,
): ParentLink {
  const b = services.budget;
  const share: Budget = {};
  if (b.maxTokens !== undefined) share.maxTokens = Math.max(1, b.maxTokens - totalTokens(run.usage.tokens));
  if (b.maxCost !== undefined && run.usage.cost !== null) share.maxCost = Math.max(1e-9, b.maxCost - run.usage.cost);
  if (b.maxSeconds !== undefined)
    share.maxSeconds = Math.max(0.001, b.maxSeconds - (Date.now() - run.startedAt) / 1000);
  return {
    runId: run.runId,
    path: services.traceDir,
    kind: 'subtask',
    depth: services.depth + 1,
    ...(Object.keys(share).length ? { budget: share } : {}),
    ...(tap ? { tap } : {}),
    ...(permission && (permission.rules || permission.approver) ? { permission } : {}),
    spend: (tokens: Tokens, cost: number | null, modelCalls: number) => {
      run.usage = {
        tokens: addTokens(run.usage.tokens, tokens),
        cost: addCost(run.usage.cost, cost),
        modelCalls: run.usage.modelCalls + modelCalls,
      };
      services.parent?.spend?.(tokens, cost, modelCalls);
    },
    traced: (dir: string, sha256: string) => services.recorder?.childManifest(dir, sha256),
  };
}
