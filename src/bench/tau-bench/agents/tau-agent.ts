import type { ActionResult, Decision, State, Task, ToolPart } from '../../../core/index.js';
import { baseState } from '../../../core/index.js';
import { AgentModule, type AgentContext, type AgentModuleOptions } from '../../../engine/agent-module.js';
import type { TauEnv, TauObservation } from '../tau-env.js';

/** The original's `max_num_steps`: an episode the agent has not finished in 30 actions ends with reward 0. */
export const TAU_MAX_STEPS = 30;

/** Options of every tau agent: the episode's env (the factory builds both), and the usual AgentModule options. */
export interface TauAgentOptions extends AgentModuleOptions {
  env: TauEnv;
  /** Steps before the run stops (default 30, the original's `max_num_steps`). */
  maxSteps?: number;
}

/**
 * The conversation plumbing every tau-bench agent shares, as the original's `solve` loops do it: the first step
 * starts the conversation (the customer's answer to the greeting is the first user message), an agent's text
 * reply is the `respond` action (a `wait` decision whose rationale is the message: it goes to the simulated
 * customer in REDUCE, and the customer's answer is the next step's user message), and tool calls run the domain's
 * tools. Subclasses choose the prompt and the parser; the model path does the rest.
 */
export abstract class TauAgent extends AgentModule<State, TauObservation> {
  readonly env: TauEnv;
  readonly maxSteps: number;

  constructor(options: TauAgentOptions) {
    const maxSteps = options.maxSteps ?? TAU_MAX_STEPS;
    if (!Number.isInteger(maxSteps) || maxSteps < 1)
      throw new RangeError(`tau agent: maxSteps must be a positive integer, got ${String(maxSteps)}`);
    super({
      modelParams: { temperature: 0 },
      ...options,
      config: { domain: options.env.domain.name, maxSteps, ...options.config },
    });
    this.env = options.env;
    this.maxSteps = maxSteps;
  }

  override initState(task: Task): State {
    return baseState(task, this.maxSteps);
  }

  /** Starts the conversation on the first step (the simulator's `reset`); after that, what the env shows. */
  override async observe(_state: State, envView: unknown, ctx: AgentContext): Promise<TauObservation> {
    if (this.env.hasStarted) return envView as TauObservation;
    await this.env.start(ctx);
    ctx.emit('tau:user', { content: this.env.conversation[this.env.conversation.length - 1]?.content ?? '' });
    return this.env.observe();
  }

  /** The customer's new message, if any, is this step's user message. */
  override prepare(_state: State, observation: TauObservation): string | undefined {
    return observation.userMessage;
  }

  /** A `wait` is the agent's message to the customer: it goes to the simulator, whose answer the next step sees. */
  override async reduce(
    state: State,
    _observation: TauObservation,
    decision: Decision,
    results: ActionResult[],
    ctx: AgentContext,
  ): Promise<State> {
    if (decision.mode === 'wait') {
      const answer = await this.env.respond(decision.rationale ?? '', ctx);
      ctx.emit('tau:user', { content: answer });
    } else if (decision.mode === 'act') {
      this.unknownActions(state, results);
    }
    return state;
  }

  /**
   * A call of a tool the domain does not have is, in the original, an action like any other: the env records it and
   * answers `Unknown action <name>`. The executor refused it (no such tool); the session records it here and its
   * answer replaces the executor's error in the history, so the model sees the original's text.
   */
  private unknownActions(state: State, results: readonly ActionResult[]): void {
    const last = state.messages[state.messages.length - 1];
    if (!last || last.role !== 'assistant') return;
    for (const part of last.parts) {
      if (part.type !== 'tool' || part.state.status !== 'error' || this.tools.has(part.tool)) continue;
      if (!results.some((r) => r.actionId === part.callID)) continue;
      const observation = this.env.call(part.tool, JSON.stringify(part.state.input)).observation;
      const s = part.state;
      (part as ToolPart).state = {
        status: 'completed',
        input: s.input,
        output: observation,
        time: { created: s.time.created, start: s.time.start, end: s.time.end },
      };
    }
  }
}
