import type { Decision, State } from '../../../core/index.js';
import { newActionId } from '../../../core/index.js';
import type { AgentContext } from '../../../engine/agent-module.js';
import { toPlain } from '../py/py-value.js';
import type { TauObservation } from '../tau-env.js';
import { tauTools } from '../tau-tools.js';
import { TauAgent, type TauAgentOptions } from './tau-agent.js';

/** The message the ground-truth agent ends with when its task requires no outputs. */
export const GROUND_TRUTH_CLOSING = 'Your request has been taken care of. Is there anything else I can help you with?';

/**
 * A sanity check, not a baseline: replays the task's own ground-truth actions (each with its exact kwargs JSON), one
 * per step and without a model, then answers the customer once with the task's required outputs (one per line), or
 * with a closing line when it has none. Every task of every split should score 1.0 with it; one that does not
 * points at the port. A `respond` among the actions is said to the customer.
 */
export class TauGroundTruthAgent extends TauAgent {
  private readonly exact: Map<string, string>;
  private next = 0;
  private answered = false;

  constructor(options: TauAgentOptions) {
    const exact = new Map<string, string>();
    super({
      tools: tauTools(options.env.domain, { rawArgs: (ctx) => exact.get(ctx.callId) }),
      ...options,
      config: { agent: 'ground-truth', ...options.config },
    });
    this.exact = exact;
  }

  override decide(_state: State, _observation: TauObservation, _ctx: AgentContext): Decision {
    const actions = this.env.task.actions;
    while (this.next < actions.length) {
      const action = actions[this.next++];
      if (action.name === 'respond')
        return { mode: 'wait', rationale: String(toPlain(action.kwargs.get('content') ?? '')) };
      const id = newActionId();
      this.exact.set(id, action.kwargsJson);
      return {
        mode: 'act',
        actions: [{ id, name: action.name, args: toPlain(action.kwargs) as Record<string, unknown> }],
      };
    }
    const outputs = this.env.task.outputs;
    const message = this.answered || !outputs.length ? GROUND_TRUTH_CLOSING : outputs.join('\n');
    this.answered = true;
    return { mode: 'wait', rationale: message };
  }
}
