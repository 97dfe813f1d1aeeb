import { baseState, type Decision, type State, type Task } from '../../core/index.js';
import { AgentModule, type AgentModuleOptions } from '../../engine/agent-module.js';

/**
 * An agent that returns the given decisions from `decide`, one per step, in order (the last one repeats), so a run
 * takes no model. A function in the list is called when its step comes (for a decision that depends on time or a
 * counter). Each run starts again at the first decision. `options.config.maxSteps` sets the state's step limit
 * (default 50). What a test of tools, policies, hooks or traces drives a real Engine with.
 */
export class ScriptedAgent extends AgentModule<State> {
  private i = 0;
  constructor(
    private readonly decisions: ReadonlyArray<Decision | (() => Decision)>,
    options: AgentModuleOptions = {},
  ) {
    super(options);
    if (decisions.length === 0)
      throw new TypeError('ScriptedAgent needs at least one decision (e.g. decide.final("done"))');
  }

  initState(task: Task): State {
    this.i = 0;
    const maxSteps = this.config.maxSteps;
    return baseState(task, typeof maxSteps === 'number' ? maxSteps : 50);
  }

  override decide(): Decision {
    const d = this.decisions[Math.min(this.i++, this.decisions.length - 1)]!;
    return typeof d === 'function' ? d() : structuredClone(d);
  }
}
