import type { Model } from '../../core/index.js';
import type { AnyAgentModule } from '../../engine/agent-module.js';
import {
  defineSuite,
  toBenchAgent,
  type AgentFactory,
  type AgentFactoryContext,
  type BenchAgent,
  type BenchTaskInput,
  type SuiteDefinition,
} from '../index.js';
import { TauGroundTruthAgent } from './agents/ground-truth-agent.js';
import { TauReactAgent } from './agents/react-agent.js';
import { TAU_MAX_STEPS } from './agents/tau-agent.js';
import { TauToolCallingAgent } from './agents/tool-calling-agent.js';
import { TauEnv } from './tau-env.js';
import { tauScorer } from './tau-scorer.js';
import type { TauDomain, TauTask } from './types.js';
import { createUserSimulator } from './user/user-strategy.js';
import { TAU_AGENTS, isTauAgentKind, type TauAgentKind } from './tau-agent-kinds.js';

export { TAU_AGENTS, isTauAgentKind, type TauAgentKind };

/** The suite name of a domain's split (`tau-bench-retail-test`): a resume of another split is refused by name. */
export function tauSuiteName(domain: string, split: string): string {
  return `tau-bench-${domain}-${split}`;
}

/** Options of `tauSuite`. */
export interface TauSuiteOptions {
  domain: TauDomain;
  /** Default `test`. */
  split?: string;
  /** Only these tasks (ids are the task indexes, as strings); an id the split lacks is an error. */
  taskIds?: readonly string[];
}

/** The tasks of a split as bench tasks: id = the task's index, objective = its instruction, the step budget 30. */
export function tauBenchTasks(domain: TauDomain, split: string, taskIds?: readonly string[]): BenchTaskInput[] {
  if (!domain.splits.includes(split))
    throw new Error(`tau-bench ${domain.name} has no split "${split}" (it has: ${domain.splits.join(', ')})`);
  const tasks = domain.tasks(split);
  let chosen: readonly TauTask[] = tasks;
  if (taskIds) {
    const byId = new Map(tasks.map((t) => [t.id, t]));
    const unknown = taskIds.filter((id) => !byId.has(id));
    if (unknown.length)
      throw new Error(
        `tau-bench ${domain.name}/${split} has no task ${unknown.join(', ')} (ids are 0..${tasks.length - 1})`,
      );
    chosen = [...new Set(taskIds)].map((id) => byId.get(id)!);
  }
  return chosen.map((t) => ({
    id: t.id,
    objective: t.instruction,
    budget: { maxSteps: TAU_MAX_STEPS },
    metadata: {
      benchmark: 'tau-bench',
      domain: domain.name,
      split,
      index: t.index,
      userId: t.userId,
      commit: domain.commit,
    },
  }));
}

/** A tau-bench domain split as a bench suite (run it with `tauAgentFactory`): tasks, the reward as scorer, 30 steps. */
export function tauSuite(options: TauSuiteOptions): SuiteDefinition {
  const split = options.split ?? 'test';
  const tasks = tauBenchTasks(options.domain, split, options.taskIds);
  return defineSuite({
    name: tauSuiteName(options.domain.name, split),
    description: `tau-bench ${options.domain.name}, ${split} split (sierra-research/tau-bench at ${options.domain.commit.slice(0, 7)})`,
    tasks,
    scorer: tauScorer(),
    budget: { maxSteps: TAU_MAX_STEPS },
  });
}

/** What a custom tau agent's factory is told: the bench's context plus the trial's env, domain and task. */
export type TauAgentFactoryContext = AgentFactoryContext & { tau: { env: TauEnv; domain: TauDomain; task: TauTask } };

/** Builds a custom agent for one trial (an agent module's `createAgent`): it should extend TauAgent with `ctx.tau.env`. */
export type TauAgentBuilder = (
  ctx: TauAgentFactoryContext,
) => AnyAgentModule | BenchAgent | Promise<AnyAgentModule | BenchAgent>;

/** Options of `tauAgentFactory`. */
export interface TauAgentFactoryOptions {
  domain: TauDomain;
  split?: string;
  agent: TauAgentKind | TauAgentBuilder;
  /** `llm` (default), `react`, `verify`, `reflection` or `scripted` (the ground-truth agent's default). */
  userStrategy?: string;
  /** The scripted user's lines (strategy `scripted`); by default it states the instruction, then stops. */
  userLines?: readonly string[];
  /** The simulated customer's model: a model, or one per trial (a scripted model keeps its place). Default: the trial's model. */
  userModel?: Model | ((ctx: AgentFactoryContext) => Model | Promise<Model>);
  /** Step budget of the agents (default 30). */
  maxSteps?: number;
}

/**
 * The agent factory of a tau-bench run: for each trial, a fresh session and simulated customer (a TauEnv) for the
 * task, and the agent over it. The agent's model is the trial's (`--model`).
 */
export function tauAgentFactory(options: TauAgentFactoryOptions): AgentFactory {
  const split = options.split ?? 'test';
  const kind = typeof options.agent === 'string' ? options.agent : undefined;
  if (kind !== undefined && !isTauAgentKind(kind))
    throw new Error(`unknown tau-bench agent "${kind}": use one of ${TAU_AGENTS.join(', ')}, or an agent module`);
  const strategy = options.userStrategy ?? (kind === 'ground-truth' ? 'scripted' : 'llm');
  createUserSimulator(strategy); // an unknown strategy fails here, before any trial
  const tasks = options.domain.tasks(split);
  return async (ctx) => {
    const task = tasks[Number(ctx.task.id)];
    if (!task || task.id !== ctx.task.id)
      throw new Error(`tau-bench ${options.domain.name}/${split} has no task "${ctx.task.id}"`);
    const user = createUserSimulator(strategy, options.userLines ? { lines: options.userLines } : {});
    const userModel =
      strategy === 'scripted'
        ? undefined
        : typeof options.userModel === 'function'
          ? await options.userModel(ctx)
          : (options.userModel ?? ctx.model);
    if (strategy !== 'scripted' && !userModel)
      throw new Error(`the "${strategy}" user simulator needs a model: pass --user-model or --model`);
    const env = new TauEnv({ domain: options.domain, task, user, ...(userModel ? { userModel } : {}) });
    const common = {
      env,
      ...(ctx.model ? { model: ctx.model } : {}),
      ...(options.maxSteps ? { maxSteps: options.maxSteps } : {}),
    };
    if (typeof options.agent === 'function') {
      const built = toBenchAgent(await options.agent({ ...ctx, tau: { env, domain: options.domain, task } }));
      if (built.env && built.env !== env)
        throw new Error(
          'a tau-bench agent module must run in ctx.tau.env (its env is the episode: session and customer)',
        );
      return { ...built, env };
    }
    const agent =
      kind === 'tool-calling'
        ? new TauToolCallingAgent(common)
        : kind === 'react'
          ? new TauReactAgent(common)
          : kind === 'act'
            ? new TauReactAgent({ ...common, useReasoning: false })
            : new TauGroundTruthAgent(common);
    return { agent, env };
  };
}
