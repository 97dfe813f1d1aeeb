import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import type { Model } from '../core/index.js';
import { type AgentFactoryContext, type RunSuiteOptions, type Suite } from '../bench/index.js';
import { resolveSuite } from '../bench/suite.js';
import {
  TAU_AGENTS,
  isTauAgentKind,
  isUserStrategy,
  loadTauDomain,
  tauAgentFactory,
  tauSuite,
  USER_STRATEGIES,
  type TauAgentBuilder,
  type TauAgentKind,
  type TauDomain,
  type TauDomainName,
} from '../bench/tau-bench/index.js';
import { loadTraceKey } from '../trace/trace-key.js';
import { AppError } from './app-error.js';
import type { BenchSettingsFlags, TauBenchFlags } from './bench-settings.js';
import { effectiveConfig } from './effective-config.js';
import type { AppIO } from './app-io.js';
import { recordableConfig } from './mcp-setup.js';
import { resolveModel } from './model-resolver.js';
import { moduleSha256 } from './module-hash.js';
import { configBudget } from './build-engine.js';
import { runSettings } from './run-settings.js';
import { importUserModule } from './user-module.js';

/** A built-in tau-bench suite named on the command line (`tau-bench/airline`, `tau-bench/retail`). */
export interface TauSuiteRef {
  domain: TauDomainName;
}

const TAU_SUITE = /^tau-bench\/(airline|retail)$/;

/** The tau-bench suite a `bench run` argument names, unless a file or folder of that name exists (a path wins). */
export function tauSuiteRef(arg: string, cwd: string): TauSuiteRef | undefined {
  const m = TAU_SUITE.exec(arg);
  if (!m || existsSync(resolve(cwd, arg))) return undefined;
  return { domain: m[1] as TauDomainName };
}

/** The task ids of `--task-ids 0,3,7-9`: indexes and inclusive ranges. */
export function parseTaskIds(text: string): string[] {
  const ids: string[] = [];
  for (const piece of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const range = /^(\d+)-(\d+)$/.exec(piece);
    if (range) {
      const [a, b] = [Number(range[1]), Number(range[2])];
      if (a > b) throw new AppError(`--task-ids: the range ${piece} goes backwards`);
      for (let i = a; i <= b; i++) ids.push(String(i));
    } else if (/^\d+$/.test(piece)) ids.push(String(Number(piece)));
    else throw new AppError(`--task-ids: "${piece}" is not a task index or a range like 3-7`);
  }
  if (!ids.length) throw new AppError('--task-ids: no task ids given');
  return ids;
}

/** A built-in tau-bench suite loaded: the domain from the installed data, and its split's tasks (or `--task-ids`) as a suite. */
export interface LoadedTauBench {
  ref: TauSuiteRef;
  domain: TauDomain;
  suite: Suite;
}

/** Loads a built-in tau-bench suite; a missing data dir says how to install it (`npx qitos tau-bench fetch`). */
export async function loadTauBench(
  ref: TauSuiteRef,
  flags: BenchSettingsFlags & TauBenchFlags,
  cwd: string,
): Promise<LoadedTauBench> {
  try {
    const domain = await loadTauDomain(ref.domain, flags.dataDir ? { dataDir: resolve(cwd, flags.dataDir) } : {});
    const suite = await resolveSuite(
      tauSuite({
        domain,
        split: flags.split ?? 'test',
        ...(flags.taskIds ? { taskIds: parseTaskIds(flags.taskIds) } : {}),
      }),
    );
    return { ref, domain, suite };
  } catch (err) {
    throw AppError.of(err);
  }
}

/**
 * The runSuite options of a tau-bench run: the built-in agent (`tool-calling` by default, `react`, `act`,
 * `ground-truth`) or an agent module's `createAgent(ctx)` (ctx.tau holds the episode's env), the agent's model
 * (`--model`), the simulated customer's strategy and model (`--user-strategy`, `--user-model`, default the agent's
 * model), all recorded in run.json so a resume with other settings is refused.
 */
export async function prepareTauBenchRun(
  io: AppIO,
  loaded: LoadedTauBench,
  flags: BenchSettingsFlags & TauBenchFlags,
): Promise<Omit<RunSuiteOptions, 'outDir'>> {
  const { suite, domain, ref } = loaded;
  if (flags.export)
    throw new AppError('--export does not apply to tau-bench runs: an agent module exports createAgent(ctx)');
  const config = await effectiveConfig(
    {},
    { config: flags.config, model: flags.model, maxSteps: flags.maxSteps, set: flags.set },
    io.cwd,
  );
  const agentName = flags.agent ?? 'tool-calling';
  const builtIn = isTauAgentKind(agentName);
  const agentPath = resolve(io.cwd, agentName);
  if (!builtIn && !existsSync(agentPath))
    throw new AppError(
      `--agent: "${agentName}" is neither a tau-bench agent (${TAU_AGENTS.join(', ')}) nor an agent module file`,
    );
  if (flags.userStrategy !== undefined && !isUserStrategy(flags.userStrategy))
    throw new AppError(
      `--user-strategy: unknown strategy "${flags.userStrategy}": use one of ${USER_STRATEGIES.join(', ')}`,
    );
  const strategy = flags.userStrategy ?? (agentName === 'ground-truth' ? 'scripted' : 'llm');
  const modelId = config.model?.id;
  const userModelId = strategy === 'scripted' ? undefined : (flags.userModel ?? modelId);
  if (agentName !== 'ground-truth' && !modelId)
    throw new AppError(`the tau-bench agent "${agentName}" needs a model: pass --model <provider:model>`);
  if (strategy !== 'scripted' && !userModelId)
    throw new AppError(
      `the "${strategy}" user simulator needs a model: pass --user-model <provider:model> (or --model)`,
    );

  // A scripted model keeps its place in its script: each trial gets its own. Provider models are shared.
  const perTrial = (id: string | undefined) => {
    if (!id) return async (): Promise<Model | undefined> => undefined;
    const shared = id.startsWith('scripted:')
      ? undefined
      : resolveModel({ ...(id === modelId ? config.model : {}), id }, io.cwd, io.env);
    return async (): Promise<Model | undefined> => (shared ? shared : resolveModel({ id }, io.cwd, io.env));
  };
  const agentModel = perTrial(modelId);
  const userModel = perTrial(userModelId);
  const sharedAgentModel = modelId && !modelId.startsWith('scripted:') ? await agentModel() : undefined;

  let agent: TauAgentBuilder | TauAgentKind;
  let agentLabel = `tau-bench:${agentName}`;
  let sha256: string | undefined;
  if (builtIn) agent = agentName;
  else {
    const path = agentPath;
    const mod = await importUserModule(path);
    if (typeof mod.createAgent !== 'function')
      throw new AppError(
        `agent module ${agentName} must export createAgent(ctx) for tau-bench (ctx.tau.env is the episode's env; see docs/tau-bench.md)`,
      );
    agent = mod.createAgent as TauAgentBuilder;
    agentLabel = relative(io.cwd, path) || path;
    sha256 = await moduleSha256(path);
  }
  const domainName = ref.domain;
  const split = flags.split ?? 'test';
  const factory = tauAgentFactory({
    domain,
    split,
    agent,
    userStrategy: strategy,
    userModel: async () => (await userModel())!,
    ...(config.engine?.maxSteps ? { maxSteps: config.engine.maxSteps } : {}),
  });
  const e = config.engine ?? {};
  const tau = {
    domain: domainName,
    split,
    commit: domain.commit,
    agent: agentName,
    userStrategy: strategy,
    userModel: userModelId ?? null,
  };
  return {
    suite,
    agentFactory: async (ctx: AgentFactoryContext) => factory({ ...ctx, model: (await agentModel()) ?? ctx.model }),
    ...(sharedAgentModel ? { model: sharedAgentModel } : {}),
    budget: configBudget(config),
    engine: {
      ...(e.maxRecoveries !== undefined ? { maxRecoveries: e.maxRecoveries } : {}),
      tools: { parallel: e.parallelTools, concurrency: e.toolConcurrency, timeoutMs: e.toolTimeoutMs },
    },
    agentLabel,
    ...(sha256 ? { agentSha256: sha256 } : {}),
    ...(modelId ? { modelLabel: modelId } : {}),
    settings: { ...runSettings({ module: agentLabel, sha256 }, config), tau },
    traceConfig: { ...recordableConfig({ ...config, engine: { ...suite.budget, ...e } }), tau },
    streamDeltas: config.trace?.streamDeltas ?? false,
    signingKey: await loadTraceKey(io.env, { create: true }),
  };
}
