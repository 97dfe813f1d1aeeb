import type { Env, Hook, Model, Policy } from '../core/index.js';
import { AgentModule, type AnyAgentModule } from '../engine/agent-module.js';
import type { BenchTask } from './bench-task.js';

/** What runs one task: the agent, and optionally the env, policies, hooks and tool services of that run. */
export interface BenchAgent {
  agent: AnyAgentModule;
  env?: Env;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  policies?: Policy<any>[];
  hooks?: Hook[];
  services?: Record<string, unknown>;
  /** Called once the run has ended (e.g. closes the MCP servers of the trial); a failure is reported as the trial's error. */
  dispose?: () => void | Promise<void>;
}

/** What an agent factory is told about the run it builds an agent for. */
export interface AgentFactoryContext {
  task: BenchTask;
  epoch: number;
  /** The model given to the suite run (`--model`), if any; the engine uses it over the agent's own. */
  model: Model | undefined;
  signal: AbortSignal;
}

/**
 * Builds a fresh agent for each task and epoch (agents hold per-run state; never share one between concurrent
 * runs). Return an AgentModule, or a BenchAgent to give the run its own env, policies or hooks.
 */
export type AgentFactory = (
  ctx: AgentFactoryContext,
) => AnyAgentModule | BenchAgent | Promise<AnyAgentModule | BenchAgent>;

/**
 * Whether a value is an agent: an AgentModule, or an object with its methods (an agent module that imports its own
 * copy of qitos-ts builds agents of another AgentModule class).
 */
function isAgent(value: unknown): value is AnyAgentModule {
  if (value instanceof AgentModule) return true;
  const v = value as Record<string, unknown> | null;
  return (
    !!v &&
    typeof v === 'object' &&
    typeof v.initState === 'function' &&
    typeof v.decide === 'function' &&
    typeof v.reduce === 'function'
  );
}

/** A factory's return value as a BenchAgent; anything else is an error naming what came back. */
export function toBenchAgent(value: unknown): BenchAgent {
  if (isAgent(value)) return { agent: value };
  if (value && typeof value === 'object' && isAgent((value as BenchAgent).agent)) return value as BenchAgent;
  const what =
    value === null
      ? 'null'
      : typeof value === 'object'
        ? `an object with keys ${Object.keys(value as object).join(', ') || '(none)'}`
        : typeof value;
  throw new Error(
    `the agent factory returned ${what}; expected an AgentModule or { agent: AgentModule, env?, policies? }`,
  );
}

type AgentClass = new (options: { model?: Model }) => AnyAgentModule;

/**
 * The agent factory an agent module exports, in this order: a `createAgent` function, a `default` export that
 * is an AgentModule subclass (constructed with `{ model }`) or a factory function. `where` names the module in
 * errors.
 */
export function agentFactoryFromModule(mod: Record<string, unknown>, where: string): AgentFactory {
  for (const value of [mod.createAgent, mod.default]) {
    if (typeof value !== 'function') continue;
    if (value.prototype instanceof AgentModule || isAgent(value.prototype)) {
      const Cls = value as AgentClass;
      return ({ model }) => new Cls({ model });
    }
    return async (ctx) => toBenchAgent(await (value as AgentFactory)(ctx));
  }
  throw new Error(
    `agent module ${where} exports neither createAgent(ctx) nor a default AgentModule ` +
      `subclass or factory (it exports: ${Object.keys(mod).join(', ') || 'nothing'})`,
  );
}
