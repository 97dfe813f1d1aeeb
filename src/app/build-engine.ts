import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type {
  ActionRunner,
  Approver,
  Budget,
  Critic,
  Env,
  Hook,
  Memory,
  Model,
  ParentLink,
  PermissionConfig,
  Policy,
  Redactor,
  Search,
  State,
  TraceTap,
} from '../core/index.js';
import type { ExecutorOptions } from '../engine/action-executor.js';
import { HostEnv, MemoryEnv } from '../envs/index.js';
import { Engine, type EngineOptions } from '../engine/engine.js';
import type { AgentModule } from '../engine/agent-module.js';
import { compaction, doomLoop } from '../kit/policies/index.js';
import { hashingEmbedder } from '../models/index.js';
import { markdownMemory, summaryMemory, vectorMemory, windowMemory } from '../kit/memory/index.js';
import { passThroughCritic, reactSelfReflectionCritic, selfReflectionCritic } from '../kit/critics/index.js';
import { beamSearch, bestFirstSearch, greedySearch, treeSearch } from '../kit/search/index.js';
import { AppError } from './app-error.js';
import { addSkills } from './skills-setup.js';
import type { LoadedAgent } from './agent-loader.js';
import type { QitosConfig } from './config-schema.js';
import { resolveModel } from './model-resolver.js';
import { recordableConfig } from './mcp-setup.js';
import type { McpManager } from '../kit/mcp/mcp-manager.js';

/** Default traces folder (relative to the working folder). */
export const DEFAULT_TRACE_DIR = 'traces';

/**
 * Builds the agent the way every command does: `new AgentClass({ model, modelParams, ...config.agent })`.
 * The convention for agent modules: the constructor takes AgentModuleOptions plus the agent's own config.
 */
export function buildAgent(
  loaded: LoadedAgent,
  config: QitosConfig,
  model: Model | undefined,
): AgentModule<State, unknown> {
  const options = {
    ...(model ? { model } : {}),
    ...(config.model?.params ? { modelParams: config.model.params } : {}),
    ...config.agent,
  };
  try {
    return new loaded.AgentClass(options);
  } catch (err) {
    throw new AppError(`cannot construct agent ${loaded.export} from ${loaded.module}: ${(err as Error).message}`);
  }
}

/** The model the config names (`--model` already merged in), or undefined to keep the agent's own. */
export async function configuredModel(
  config: QitosConfig,
  cwd: string,
  env: Record<string, string | undefined>,
): Promise<Model | undefined> {
  return config.model ? resolveModel(config.model, cwd, env) : undefined;
}

/** Policies the config asks for, in order: doom-loop, then compaction (which keeps the outputs of the agent's `keepOutput` tools). */
export function buildPolicies(config: QitosConfig, agent: AgentModule<State, unknown>): Policy<State>[] {
  const out: Policy<State>[] = [];
  const p = config.policies ?? {};
  try {
    if (p.doomLoop) out.push(doomLoop(p.doomLoop === true ? {} : p.doomLoop));
    if (p.compaction)
      out.push(compaction({ ...(p.compaction === true ? {} : p.compaction), tools: agent.tools.list() }));
  } catch (err) {
    throw new AppError(`policies: ${(err as Error).message}`);
  }
  return out;
}

/** The env the config asks for (`env:` or `--workspace`), or undefined for none. Host roots are relative to `cwd`. */
export function buildEnv(config: QitosConfig, cwd: string): Env | undefined {
  const e = config.env;
  if (!e) return undefined;
  try {
    if (e.type === 'memory') return new MemoryEnv({ files: e.files ?? {} });
    const { type: _type, root, ...options } = e;
    return new HostEnv({ ...options, root: resolve(cwd, root) });
  } catch (err) {
    throw new AppError(`env: ${(err as Error).message}`);
  }
}

/** A factory of the memory the config asks for (every run its own instance; files carry over runs), or undefined. */
export function buildMemory(config: QitosConfig, cwd: string): (() => Memory) | undefined {
  const m = config.memory;
  if (!m) return undefined;
  const base = config.env?.type === 'host' ? resolve(cwd, config.env.root) : cwd;
  switch (m.type) {
    case 'window':
      return () => windowMemory(m);
    case 'summary':
      return () => summaryMemory(m);
    case 'vector': {
      const embedder = hashingEmbedder(m.dimensions ? { dimensions: m.dimensions } : {});
      return () =>
        vectorMemory({
          embedder,
          ...(m.maxRecords ? { maxRecords: m.maxRecords } : {}),
          ...(m.path ? { path: resolve(cwd, m.path) } : {}),
        });
    }
    case 'markdown': {
      const path = m.path ? resolve(cwd, m.path) : join(base, '.qitos', 'memory.md');
      return () => markdownMemory({ path, ...(m.maxRecords ? { maxRecords: m.maxRecords } : {}) });
    }
  }
}

/** The critics the config asks for, in order. */
export function buildCritics(config: QitosConfig): Critic<State>[] {
  return (config.critics ?? []).map((c) => {
    if (c.type === 'pass-through') return passThroughCritic();
    if (c.type === 'self-reflection') return selfReflectionCritic(c);
    return reactSelfReflectionCritic(c);
  });
}

/** The search the config asks for, or undefined (a branch then acts on its first candidate). */
export function buildSearch(config: QitosConfig): Search<State> | undefined {
  const s = config.search;
  if (!s) return undefined;
  if (s.type === 'greedy') return greedySearch();
  if (s.type === 'beam') return beamSearch(s);
  if (s.type === 'best-first') return bestFirstSearch(s);
  return treeSearch(s);
}

/** What one engine run of a command needs besides the config. */
export interface EngineSetup {
  agent: AgentModule<State, unknown>;
  loaded: LoadedAgent;
  config: QitosConfig;
  cwd: string;
  /** Forces this memory on the engine (replay serves the recorded reads), whatever the config asks for. */
  memory?: Memory;
  /** Forces this model on the engine (replay), whatever the agent built for itself. */
  model?: Model;
  /** Forces this env (a benchmark's own, e.g. a tau-bench episode), whatever the config asks for. */
  env?: Env;
  /** Policies of this run besides the config's (a benchmark trial's own). */
  policies?: Policy<State>[];
  /** Services the run's tools read (`ctx.services`), e.g. a benchmark trial's. */
  services?: Record<string, unknown>;
  /** A benchmark trial's suite record, kept in the trace's config (`suite`) so the run can be rebuilt again. */
  suite?: { provider: string; record: Record<string, unknown> };
  executor?: ActionRunner;
  /** The recorded run a replay or fork descends from. */
  parent?: ParentLink;
  hooks?: Hook[];
  /** Where a one-line warning goes (the env runs commands without a sandbox). */
  warn?: (line: string) => void;
  /** Connected MCP servers (withMcp): their tools join the agent's, and the run records their events. */
  mcp?: McpManager;
  /** This machine's trace key (loadTraceKey): the run's manifest is signed with it. */
  signingKey?: Uint8Array | undefined;
  /** The command's secrets (`io.redactor`): kept out of the trace and the event stream. */
  redactor?: Redactor | undefined;
  /** Where the run's trace records also go (the command's OpenTelemetry export, `withTelemetry`). */
  tap?: TraceTap | undefined;
  /** End runs on SIGINT/SIGTERM/SIGHUP (default true); a server handles the signals itself. */
  handleSigint?: boolean;
  /** Answers permission asks (the terminal, `--auto`, a server's approvals); without one an ask is refused. */
  onApproval?: Approver;
  /** The step debugger (`qitos debug`; a replay serving recorded edits): breakpoints, onBreak, breakCondition. */
  debug?: Pick<EngineOptions<State>, 'breakpoints' | 'onBreak' | 'breakCondition'>;
}

/** The run budget the config's `engine:` section sets (only the limits it names). */
export function configBudget(config: QitosConfig): Budget {
  return definedLimits(config.engine ?? {});
}

/** The budget of a workflow run: the config's `workflow:` section (the `engine:` budget is for agents). */
export function workflowBudget(config: QitosConfig): Budget {
  return definedLimits(config.workflow ?? {});
}

function definedLimits(section: Budget): Budget {
  const { maxSteps, maxSeconds, maxTokens, maxCost } = section;
  return Object.fromEntries(
    Object.entries({ maxSteps, maxSeconds, maxTokens, maxCost }).filter(([, v]) => v !== undefined),
  );
}

/**
 * What a config decides of an engine, the same for every front end (`qitos run`, `bench`, `serve`, `workflow`,
 * `replay`, `fork`, `debug`): its env, memory, critics, search, budget, recovery, tool execution, permission rules
 * and trace folder. A front end adds what is its own (the agent, the model, hooks, who answers asks).
 */
export interface ConfiguredEngine {
  /** A new env for each run (a bench run calls it once per trial), or undefined when the config names none. */
  env(): Env | undefined;
  memory: (() => Memory) | undefined;
  critics: Critic<State>[];
  search: Search<State> | undefined;
  /** The `engine:` budget (`workflow:` for a workflow run). */
  budget: Budget;
  maxRecoveries: number | undefined;
  tools: ExecutorOptions;
  permission: PermissionConfig | undefined;
  approvalTimeoutMs: number | undefined;
  /** The trace folder, absolute. */
  traceDir: string;
  streamDeltas: boolean;
  /** The config as every trace records it (secrets left out), so replay and fork rebuild the same engine. */
  recorded: Record<string, unknown>;
}

/**
 * The engine a config describes. `kind: 'workflow'` takes the `workflow:` budget and no memory, critics or search
 * (a workflow's nodes decide; docs/workflow.md).
 */
export function configuredEngine(
  config: QitosConfig,
  cwd: string,
  kind: 'agent' | 'workflow' = 'agent',
): ConfiguredEngine {
  const e = config.engine ?? {};
  const agent = kind === 'agent';
  // Built once here so a bad env section is an error before any run starts; later runs get fresh instances.
  let first = buildEnv(config, cwd);
  return {
    env: () => {
      const env = first ?? buildEnv(config, cwd);
      first = undefined;
      return env;
    },
    memory: agent ? buildMemory(config, cwd) : undefined,
    critics: agent ? buildCritics(config) : [],
    search: agent ? buildSearch(config) : undefined,
    budget: agent ? configBudget(config) : workflowBudget(config),
    maxRecoveries: e.maxRecoveries,
    tools: { parallel: e.parallelTools, concurrency: e.toolConcurrency, timeoutMs: e.toolTimeoutMs },
    permission: config.permission,
    approvalTimeoutMs: e.approvalTimeoutMs,
    traceDir: resolve(cwd, config.trace?.dir ?? DEFAULT_TRACE_DIR),
    streamDeltas: config.trace?.streamDeltas ?? false,
    recorded: recordableConfig(config) as Record<string, unknown>,
  };
}

/**
 * The policies of one agent's run, in order: the config's (doom-loop, compaction), its skills' (whose tools this
 * registers on the agent) and the MCP servers' (whose tools join the agent's).
 */
export async function agentPolicies(
  agent: AgentModule<State, unknown>,
  config: QitosConfig,
  env: Env | undefined,
  cwd: string,
  options: { mcp?: McpManager | undefined; warn?: ((line: string) => void) | undefined } = {},
): Promise<Policy<State>[]> {
  const skillPolicies = await addSkills(agent, config, env, cwd, options.warn);
  options.mcp?.attach(agent.tools);
  return [...buildPolicies(config, agent), ...skillPolicies, ...(options.mcp ? [options.mcp.runPolicy<State>()] : [])];
}

/** Makes the trace folder, so a bad one is a one-line error, not a run that fails to start and names a trace that does not exist. */
export async function ensureTraceDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true }).catch((err: NodeJS.ErrnoException) => {
    throw new AppError(
      `trace folder ${dir} cannot be ` +
        `created: ${err.code === 'ENOTDIR' || err.code === 'EEXIST' ? 'a file is in the way' : err.message}`,
    );
  });
}

/** Says once per command that its commands are not sandboxed, and why. */
export function warnSandbox(env: Env | undefined, warn: ((line: string) => void) | undefined): void {
  if (env instanceof HostEnv && env.sandboxNote) warn?.(`warning: ${env.sandboxNote}\n`);
}

/** An Engine with the config's budgets, recovery, tool options, policies and tracing; SIGINT, SIGTERM and SIGHUP end the run cleanly. */
export async function buildEngine(s: EngineSetup): Promise<Engine<State>> {
  const c = configuredEngine(s.config, s.cwd);
  const env = s.env ?? c.env();
  warnSandbox(env, s.warn);
  const policies = [
    ...(s.policies ?? []),
    ...(await agentPolicies(s.agent, s.config, env, s.cwd, { mcp: s.mcp, warn: s.warn })),
  ];
  await ensureTraceDir(c.traceDir);
  const memory = s.memory ?? c.memory;
  return new Engine<State>({
    agent: s.agent,
    ...(env ? { env } : {}),
    ...(s.model ? { model: s.model } : {}),
    ...(memory ? { memory } : {}),
    critics: c.critics,
    ...(c.search ? { search: c.search } : {}),
    policies,
    hooks: s.hooks ?? [],
    ...(s.services ? { services: s.services } : {}),
    budget: c.budget,
    ...(c.maxRecoveries !== undefined ? { maxRecoveries: c.maxRecoveries } : {}),
    tools: c.tools,
    ...(s.executor ? { executor: s.executor } : {}),
    handleSigint: s.handleSigint ?? true,
    ...(s.redactor ? { redactor: s.redactor } : {}),
    ...(s.parent ? { parent: s.parent } : {}),
    ...(c.permission !== undefined ? { permission: c.permission } : {}),
    ...(s.onApproval ? { onApproval: s.onApproval } : {}),
    ...(c.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: c.approvalTimeoutMs } : {}),
    ...s.debug,
    trace: {
      dir: c.traceDir,
      streamDeltas: c.streamDeltas,
      agentSource: {
        module: s.loaded.module,
        export: s.loaded.export,
        ...(s.loaded.sha256 ? { sha256: s.loaded.sha256 } : {}),
      },
      config: s.suite ? { ...c.recorded, suite: { provider: s.suite.provider, ...s.suite.record } } : c.recorded,
      ...(s.signingKey ? { signingKey: s.signingKey } : {}),
      ...(s.tap ? { tap: s.tap } : {}),
    },
  });
}
