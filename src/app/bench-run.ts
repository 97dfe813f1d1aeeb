import { existsSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Model, State } from '../core/index.js';
import type { AgentModule } from '../engine/agent-module.js';
import { autoApprove } from '../engine/permission-gate.js';
import {
  findSuiteProvider,
  loadSuite,
  providerOptions,
  toBenchAgent,
  type AgentFactory,
  type BenchAgent,
  type ProvidedRun,
  type RunSuiteOptions,
  type Suite,
  type SuiteProvider,
  type SuiteRunContext,
} from '../bench/index.js';
import { agentFactoryFromModule } from '../bench/bench-agent.js';
import { loadTraceKey } from '../trace/trace-key.js';
import { importAgentModule, loadAgent } from './agent-loader.js';
import { AppError } from './app-error.js';
import type { AppIO } from './app-io.js';
import {
  agentPolicies,
  buildAgent,
  buildPolicies,
  configuredEngine,
  warnSandbox,
  type ConfiguredEngine,
} from './build-engine.js';
import type { QitosConfig } from './config-schema.js';
import { effectiveConfig } from './effective-config.js';
import { connectConfiguredMcp, recordableConfig } from './mcp-setup.js';
import { resolveModel } from './model-resolver.js';
import { moduleSha256 } from './module-hash.js';
import { runSettings } from './run-settings.js';
import { importUserModule } from './user-module.js';

/** What a bench run's settings are made of (`bench run` and every cell of `bench sweep`). */
export interface BenchSettings {
  agent?: string;
  export?: string;
  model?: string;
  config?: string;
  maxSteps?: number;
  /** `--set key=value`s (see ConfigFlags.set). */
  set?: string[];
  /** Approve every permission ask; without it a bench run refuses them (no one is there to answer). */
  auto?: boolean;
}

/**
 * The runSuite options a set of settings gives (agent, model, budgets, engine, recorded settings), without where and
 * how it runs.
 */
export type PreparedBenchRun = Omit<RunSuiteOptions, 'outDir'>;

/** A suite opened for `bench run` / `bench sweep`, and how one run of it is prepared from settings (a sweep: per cell). */
export interface OpenedBenchSuite {
  suite: Suite;
  prepare(settings: BenchSettings): Promise<PreparedBenchRun>;
}

/**
 * Opens the suite of `bench run` and `bench sweep`: a provider's (`tau-bench/retail`, with the options it declares,
 * taken from `given`), else a suite folder, file or module. A provider's option given for another suite is refused.
 */
export async function openBenchSuite(
  io: AppIO,
  arg: string,
  given: Readonly<Record<string, unknown>>,
  providers: readonly SuiteProvider[],
): Promise<OpenedBenchSuite> {
  const provider = findSuiteProvider(providers, arg, io.cwd);
  const options = userErrors(() => providerOptions(providers, provider, given));
  if (!provider) {
    const suite = await loadBenchSuite(io, arg);
    return { suite, prepare: (settings) => prepareBenchRun(io, suite, settings) };
  }
  const opened = await userErrorsAsync(() => provider.open(arg, options, io.cwd));
  return {
    suite: opened.suite,
    prepare: (settings) => prepareProvidedRun(io, provider, opened.suite, settings, opened.prepare),
  };
}

/** Loads a suite from disk (a judge model a scorer names is built like `--model`). */
export async function loadBenchSuite(io: AppIO, suitePath: string): Promise<Suite> {
  const judgeModel = (spec: string) => resolveModel({ id: spec }, io.cwd, io.env);
  return userErrorsAsync(() =>
    loadSuite(resolve(io.cwd, suitePath), { createModel: judgeModel, importModule: importUserModule }),
  );
}

/** The effective config of a bench run: `--config` <- flags <- `--set`s (the suite's default model when none is named). */
async function benchConfig(io: AppIO, settings: BenchSettings, suiteModel?: string): Promise<QitosConfig> {
  const config = await effectiveConfig(
    {},
    { config: settings.config, model: settings.model, maxSteps: settings.maxSteps, set: settings.set },
    io.cwd,
  );
  return !config.model && suiteModel ? effectiveConfig(config, { model: suiteModel }, io.cwd) : config;
}

/**
 * What every bench run takes from its config, whoever made its agents: the engine the config describes (budget,
 * recovery, tool execution, permission rules, memory, critics, search; asks refused unless `--auto`), the trial's
 * env and policies, how it is recorded (the config in every trace, with the suite's budget) and signed.
 */
async function commonRun(
  io: AppIO,
  suite: Suite,
  config: QitosConfig,
  c: ConfiguredEngine,
  auto: boolean | undefined,
): Promise<Omit<PreparedBenchRun, 'agentFactory'>> {
  return {
    suite,
    budget: c.budget,
    engine: {
      ...(c.maxRecoveries !== undefined ? { maxRecoveries: c.maxRecoveries } : {}),
      tools: c.tools,
      // No one answers a bench run's asks: they are refused (the documented default) unless --auto approves them.
      ...(c.permission !== undefined ? { permission: c.permission } : {}),
      ...(auto ? { onApproval: autoApprove } : {}),
      ...(c.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: c.approvalTimeoutMs } : {}),
      ...(c.memory ? { memory: c.memory } : {}),
      ...(c.critics.length ? { critics: c.critics } : {}),
      ...(c.search ? { search: c.search } : {}),
    },
    // Recorded in every trace so `qitos replay` / `fork` can rebuild a trial: the config with the suite's budget.
    traceConfig: recordableConfig({ ...config, engine: { ...suite.budget, ...config.engine } }),
    streamDeltas: c.streamDeltas,
    signingKey: await loadTraceKey(io.env, { create: true }),
  };
}

/**
 * A trial's agent with what the config gives every run: its env (a new one per trial), the config's policies, its
 * skills and its own connection to the MCP servers (closed when the trial ends). A server that fails is reported once
 * per bench run.
 */
function withConfig(
  io: AppIO,
  config: QitosConfig,
  c: ConfiguredEngine,
  factory: AgentFactory,
  ownEnv: boolean,
): AgentFactory {
  // Each warning once per bench run, not once per trial.
  const said = new Set<string>();
  const warn = (line: string) => {
    if (said.has(line)) return;
    said.add(line);
    io.err(line);
  };
  return async (ctx) => {
    const setup = toBenchAgent(await factory(ctx));
    const env = setup.env ?? (ownEnv ? c.env() : undefined);
    warnSandbox(env, warn);
    const mcp = await connectConfiguredMcp(config.mcp, io, { quiet: true });
    for (const s of mcp?.statuses() ?? [])
      if (s.state === 'failed') warn(`mcp: server "${s.name}" is not available: ${(s.reason ?? '').split('\n')[0]}\n`);
    const agent = setup.agent as AgentModule<State, unknown>;
    const policies = await agentPolicies(agent, config, env, io.cwd, { mcp, warn });
    const out: BenchAgent = {
      ...setup,
      ...(env ? { env } : {}),
      policies: [...(setup.policies ?? []), ...policies],
    };
    if (!mcp) return out;
    return {
      ...out,
      dispose: async () => {
        try {
          await setup.dispose?.();
        } finally {
          await mcp.close();
        }
      },
    };
  };
}

/**
 * A run of a suite from disk: the agent module's factory (or AgentModule subclass built as `qitos run` builds it),
 * the suite's default model and MCP servers, with the config's engine.
 */
export async function prepareBenchRun(io: AppIO, suite: Suite, settings: BenchSettings): Promise<PreparedBenchRun> {
  let config = await benchConfig(io, settings, suite.model);
  const agentPath = settings.agent ? resolve(io.cwd, settings.agent) : suite.agent;
  if (!agentPath) throw new AppError(`suite "${suite.name}" names no agent: pass --agent <module>`);
  if (!existsSync(agentPath))
    throw new AppError(`agent module not found: ${settings.agent ?? relative(io.cwd, agentPath)}`);
  const agent = await agentFactory(agentPath, settings.export, config, io);
  // The suite's MCP servers, with the config's of the same name winning; each trial connects its own.
  if (suite.mcp || config.mcp) config = { ...config, mcp: { ...suite.mcp, ...config.mcp } };

  // A scripted model keeps its place in its script: each trial gets its own. Provider models are shared.
  const modelId = config.model?.id;
  const shared =
    modelId && !modelId.startsWith('scripted:') ? await resolveModel(config.model!, io.cwd, io.env) : undefined;
  const modelFor = async (): Promise<Model | undefined> =>
    modelId?.startsWith('scripted:') ? resolveModel(config.model!, io.cwd, io.env) : shared;
  const build: AgentFactory = async (ctx) => agent.factory({ ...ctx, model: await modelFor() });
  const c = configuredEngine(config, io.cwd);
  return {
    ...(await commonRun(io, suite, config, c, settings.auto)),
    agentFactory: withConfig(io, config, c, build, true),
    ...(shared ? { model: shared } : {}),
    agentLabel: agent.module,
    ...(agent.export ? { agentExport: agent.export } : {}),
    agentSha256: agent.sha256,
    modelLabel: modelId,
    // What resume compares and run.json records: the agent module (and its content), the model, every setting, and
    // for an agent class the parser, tools and policies it is built with (a change in a module it imports shows there).
    settings: {
      ...runSettings({ module: agent.module, export: agent.export, sha256: agent.sha256 }, config),
      ...(await agentComponents(agent, modelFor)),
    },
  };
}

/**
 * A run of a provider's suite: the provider makes the agents (its env is the benchmark's, so the config's `env:` is
 * refused), the config gives the engine as for any suite.
 */
async function prepareProvidedRun(
  io: AppIO,
  provider: SuiteProvider,
  suite: Suite,
  settings: BenchSettings,
  prepare: (ctx: SuiteRunContext) => Promise<ProvidedRun>,
): Promise<PreparedBenchRun> {
  const config = await benchConfig(io, settings);
  if (config.env)
    throw new AppError(
      `env: a ${provider.name} suite runs each trial in the benchmark's own env; remove the config's env: section (or --workspace)`,
    );
  const models = new Map<string, Promise<Model>>();
  const ctx: SuiteRunContext = {
    cwd: io.cwd,
    agent: settings.agent,
    export: settings.export,
    modelId: config.model?.id,
    maxSteps: config.engine?.maxSteps,
    model: (id) => {
      // The config's provider options go with the config's own model; a scripted model is new for each trial.
      const make = () => resolveModel(id === config.model?.id ? config.model : { id }, io.cwd, io.env);
      if (id.startsWith('scripted:')) return make();
      if (!models.has(id)) models.set(id, make());
      return models.get(id)!;
    },
    importModule: importUserModule,
    moduleSha256,
  };
  const run = await userErrorsAsync(() => prepare(ctx));
  const c = configuredEngine(config, io.cwd);
  return {
    ...(await commonRun(io, suite, config, c, settings.auto)),
    agentFactory: withConfig(io, config, c, run.agentFactory, false),
    ...(run.model ? { model: run.model } : {}),
    agentLabel: run.agentLabel,
    ...(run.agentExport ? { agentExport: run.agentExport } : {}),
    ...(run.agentSha256 ? { agentSha256: run.agentSha256 } : {}),
    ...(run.modelLabel ? { modelLabel: run.modelLabel } : {}),
    settings: {
      ...runSettings({ module: run.agentLabel, sha256: run.agentSha256 }, config),
      [provider.recordKey]: run.record,
    },
    traceConfig: {
      ...recordableConfig({ ...config, engine: { ...suite.budget, ...config.engine } }),
      suite: { provider: provider.name, ...run.record },
    },
  };
}

/**
 * The agent factory of a module: its `createAgent` (or default factory function) when it has one, else its
 * AgentModule subclass loaded and built the way `qitos run` does it (config's agent options, model params). Also how
 * the module is recorded (as `qitos run` records it), for run.json and traces.
 */
async function agentFactory(
  path: string,
  exportName: string | undefined,
  config: QitosConfig,
  io: AppIO,
): Promise<{
  factory: AgentFactory;
  module: string;
  export?: string;
  sha256: string;
  probe?: (model: Model | undefined) => AgentModule<State, unknown>;
  policyNames?: (a: AgentModule<State, unknown>) => string[];
}> {
  const mod = await importAgentModule(path, path);
  if (
    !exportName &&
    (typeof mod.createAgent === 'function' || (typeof mod.default === 'function' && !isClass(mod.default)))
  ) {
    const rel = relative(io.cwd, path);
    return {
      factory: agentFactoryFromModule(mod, path),
      module: rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : path,
      sha256: await moduleSha256(path),
    };
  }
  const loaded = await loadAgent(path, exportName, io.cwd);
  return {
    factory: ({ model }) => buildAgent(loaded, config, model),
    module: loaded.module,
    export: loaded.export,
    sha256: loaded.sha256 ?? (await moduleSha256(loaded.absPath)),
    probe: (model) => buildAgent(loaded, config, model),
    policyNames: (a) => buildPolicies(config, a).map((p) => p.name),
  };
}

/**
 * The parser, tools and policies an agent class is built with (`components`), from one agent built the way a trial
 * builds it. None for a factory module (its agent may depend on the task) or an agent that cannot be built here.
 */
async function agentComponents(
  agent: {
    probe?: (model: Model | undefined) => AgentModule<State, unknown> | undefined;
    policyNames?: (a: AgentModule<State, unknown>) => string[];
  },
  model: () => Promise<Model | undefined>,
): Promise<{ components?: { parser: string | null; tools: string[]; policies: string[] } }> {
  if (!agent.probe) return {};
  try {
    const built = agent.probe(await model());
    if (!built) return {};
    return {
      components: {
        parser: built.parser?.name ?? null,
        tools: built.tools.names,
        policies: agent.policyNames?.(built) ?? [],
      },
    };
  } catch {
    return {}; // the trials will report why it cannot be built
  }
}

function isClass(f: unknown): boolean {
  return typeof f === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(f));
}

/** Errors the bench library throws for bad input are user errors: one line, no stack. */
export function userErrors<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw AppError.of(err);
  }
}

export async function userErrorsAsync<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw AppError.of(err);
  }
}
