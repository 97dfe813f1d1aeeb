import type { AnyTool, Decision, Env, Policy, State, TaskInput } from '../../core/index.js';
import { Engine } from '../../engine/engine.js';
import type { EngineOptions, RunResult } from '../../engine/engine-options.js';
import { ScriptedAgent } from './scripted-agent.js';

/** Options of {@link runSteps}. */
export interface RunStepsOptions {
  /** The tools the decisions call. */
  tools?: Iterable<AnyTool>;
  /** Default: an in-memory env of the engine's choice (none needed for tools that use no env). */
  env?: Env;
  policies?: Policy<State>[];
  /** The task (default: "test"). */
  task?: TaskInput | string;
  /** Where the trace goes (default: no trace). */
  trace?: EngineOptions<State>['trace'];
  /** The state's step limit (default: the number of decisions + 1, so a run that never ends stops with budget_steps). */
  maxSteps?: number;
  /** More engine options (hooks, budget, ...). */
  engine?: Omit<Partial<EngineOptions<State>>, 'agent' | 'env' | 'policies' | 'trace'>;
}

/**
 * Runs the loop on the given decisions (a {@link ScriptedAgent}) with real tools, policies and env, and returns the
 * run's result: a test of what tools do to state, how a policy stops a run, or what a trace holds, with no model.
 *
 *   const r = await runSteps([decide.call('add', { a: 1, b: 2 }), decide.final('3')], { tools: [add] });
 *   r.stopReason // 'final'
 */
export function runSteps(
  decisions: ReadonlyArray<Decision | (() => Decision)>,
  options: RunStepsOptions = {},
): Promise<RunResult<State>> {
  const agent = new ScriptedAgent(decisions, {
    tools: options.tools ?? [],
    config: { maxSteps: options.maxSteps ?? decisions.length + 1 },
  });
  const engine = new Engine<State>({
    ...options.engine,
    agent,
    ...(options.env ? { env: options.env } : {}),
    ...(options.policies ? { policies: options.policies } : {}),
    trace: options.trace ?? false,
  });
  return engine.run(options.task ?? 'test');
}
