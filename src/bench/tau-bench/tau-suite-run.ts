import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import type { Model } from '../../core/index.js';
import type { AgentFactoryContext } from '../bench-agent.js';
import { resolveSuite } from '../suite.js';
import type { ProvidedRun, ProvidedSuite, SuiteRunContext } from '../suite-provider.js';
import { loadTauDomain } from './load-domain.js';
import {
  TAU_AGENTS,
  isTauAgentKind,
  tauAgentFactory,
  tauSuite,
  type TauAgentBuilder,
  type TauAgentKind,
} from './tau-suite.js';
import type { TauDomain, TauDomainName } from './types.js';
import { USER_STRATEGIES, isUserStrategy } from './user/user-strategy.js';

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
      if (a > b) throw new Error(`--task-ids: the range ${piece} goes backwards`);
      for (let i = a; i <= b; i++) ids.push(String(i));
    } else if (/^\d+$/.test(piece)) ids.push(String(Number(piece)));
    else throw new Error(`--task-ids: "${piece}" is not a task index or a range like 3-7`);
  }
  if (!ids.length) throw new Error('--task-ids: no task ids given');
  return ids;
}

/**
 * Opens `tau-bench/<domain>`: the domain from the installed data (a missing data folder says how to install it),
 * its split's tasks (or `--task-ids`) as a suite, and how a run of it is prepared.
 */
export async function openTauSuite(
  name: string,
  options: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Promise<ProvidedSuite> {
  const domainName = name.slice('tau-bench/'.length) as TauDomainName;
  const split = options.split ?? 'test';
  if (options.userStrategy !== undefined && !isUserStrategy(options.userStrategy))
    throw new Error(
      `--user-strategy: unknown strategy "${options.userStrategy}": use one of ${USER_STRATEGIES.join(', ')}`,
    );
  const domain = await loadTauDomain(domainName, options.dataDir ? { dataDir: resolve(cwd, options.dataDir) } : {});
  const suite = await resolveSuite(
    tauSuite({ domain, split, ...(options.taskIds ? { taskIds: parseTaskIds(options.taskIds) } : {}) }),
  );
  return { suite, prepare: (ctx) => prepareTauRun(domain, split, options, ctx) };
}

/**
 * A tau-bench run: the built-in agent (`tool-calling` by default, `react`, `act`, `ground-truth`) or an agent
 * module's `createAgent(ctx)` (ctx.tau holds the episode's env), the agent's model, the simulated customer's
 * strategy and model (`--user-strategy`, `--user-model`, default the agent's model).
 */
async function prepareTauRun(
  domain: TauDomain,
  split: string,
  options: Readonly<Record<string, string | undefined>>,
  ctx: SuiteRunContext,
): Promise<ProvidedRun> {
  if (ctx.export)
    throw new Error('--export does not apply to tau-bench runs: an agent module exports createAgent(ctx)');
  const agentName = ctx.agent ?? 'tool-calling';
  const builtIn = isTauAgentKind(agentName);
  const agentPath = resolve(ctx.cwd, agentName);
  if (!builtIn && !existsSync(agentPath))
    throw new Error(
      `--agent: "${agentName}" is neither a tau-bench agent (${TAU_AGENTS.join(', ')}) nor an agent module file`,
    );
  const strategy = options.userStrategy ?? (agentName === 'ground-truth' ? 'scripted' : 'llm');
  const modelId = ctx.modelId;
  const userModelId = strategy === 'scripted' ? undefined : (options.userModel ?? modelId);
  if (agentName !== 'ground-truth' && !modelId)
    throw new Error(`the tau-bench agent "${agentName}" needs a model: pass --model <provider:model>`);
  if (strategy !== 'scripted' && !userModelId)
    throw new Error(`the "${strategy}" user simulator needs a model: pass --user-model <provider:model> (or --model)`);

  const agentModel = async (): Promise<Model | undefined> => (modelId ? ctx.model(modelId) : undefined);
  const userModel = async (): Promise<Model> => ctx.model(userModelId!);
  const shared = modelId && !modelId.startsWith('scripted:') ? await agentModel() : undefined;

  let agent: TauAgentBuilder | TauAgentKind;
  let agentLabel = `tau-bench:${agentName}`;
  let sha256: string | undefined;
  if (builtIn) agent = agentName;
  else {
    const mod = await ctx.importModule(agentPath);
    if (typeof mod.createAgent !== 'function')
      throw new Error(
        `agent module ${agentName} must export createAgent(ctx) for tau-bench (ctx.tau.env is the episode's env; see docs/tau-bench.md)`,
      );
    agent = mod.createAgent as TauAgentBuilder;
    agentLabel = relative(ctx.cwd, agentPath) || agentPath;
    sha256 = await ctx.moduleSha256(agentPath);
  }
  const factory = tauAgentFactory({
    domain,
    split,
    agent,
    userStrategy: strategy,
    userModel,
    ...(ctx.maxSteps ? { maxSteps: ctx.maxSteps } : {}),
  });
  return {
    agentFactory: async (c: AgentFactoryContext) => factory({ ...c, model: (await agentModel()) ?? c.model }),
    ...(shared ? { model: shared } : {}),
    agentLabel,
    ...(sha256 ? { agentSha256: sha256 } : {}),
    ...(modelId ? { modelLabel: modelId } : {}),
    record: {
      domain: domain.name,
      split,
      commit: domain.commit,
      agent: agentName,
      userStrategy: strategy,
      userModel: userModelId ?? null,
    },
  };
}
