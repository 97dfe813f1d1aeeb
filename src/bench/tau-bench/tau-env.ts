import type { CallModel, Env, Model, ModelMessage } from '../../core/index.js';
import { responseText } from '../../core/index.js';
import type { TauCallResult, TauDomain, TauReward, TauSession, TauTask } from './types.js';
import type { PyDict } from './py/py-value.js';
import { STOP_TOKEN } from './user/user-prompts.js';
import type { AskUserModel, UserSimulator, UserTurn } from './user/user-simulator.js';

/** The purpose the user simulator's model calls carry in the trace and in the usage by purpose. */
export const USER_PURPOSE = 'user';

/** What the agent's code passes for a user turn: the run's model call and signal (an AgentContext has both). */
export interface UserCallContext {
  callModel: CallModel;
  signal: AbortSignal;
}

/** What `TauEnv.observe()` shows the agent at the start of a step. */
export interface TauObservation {
  /** The customer's message the agent has not answered yet (undefined after a tool call). */
  userMessage: string | undefined;
  /** Why the episode ended (`user`: the customer said ###STOP###; `tool`: a terminate tool ran), or undefined. */
  ended: 'user' | 'tool' | undefined;
}

/** Options of a TauEnv. */
export interface TauEnvOptions {
  domain: TauDomain;
  task: TauTask;
  user: UserSimulator;
  /**
   * The model the simulator's calls go to (through the run's accounting and middleware, not its policies). Required
   * unless the user is scripted.
   */
  userModel?: Model;
}

/**
 * A tau-bench episode as a qitos Env: one task of a domain, its session (database, recorded actions, reward) and
 * the simulated customer. The conversation runs as in the original's `Env.reset`/`Env.step`: the customer speaks
 * first (its answer to the agent's greeting), every agent message (`respond`) goes to the simulator and its answer
 * is the agent's next observation, tool calls go to the session. The episode is terminal when the customer's
 * message contains `###STOP###` or a terminate tool (`transfer_to_human_agents`) ran. Op group `tau` is this env.
 *
 * For tau2-bench domains (the user with tools and a database of its own), the simulator would get its own tool
 * calls in `respond` against a second session; see docs/tau-bench.md.
 */
export class TauEnv implements Env {
  readonly name: string;
  readonly domain: TauDomain;
  readonly task: TauTask;
  readonly session: TauSession;
  readonly user: UserSimulator;
  readonly userModel: Model | undefined;
  /** The conversation as the agent had it: the customer's and the agent's messages, in order. */
  readonly conversation: Array<{ role: 'user' | 'agent'; content: string }> = [];
  private pending: string | undefined;
  private started = false;
  private ended: TauObservation['ended'];

  constructor(options: TauEnvOptions) {
    this.domain = options.domain;
    this.task = options.task;
    this.user = options.user;
    this.userModel = options.userModel;
    if (!this.userModel && options.user.strategy !== 'scripted')
      throw new Error(`tau-bench: the "${options.user.strategy}" user simulator needs a user model`);
    this.name = `tau-bench:${options.domain.name}`;
    this.session = options.domain.session();
  }

  ops(group: string): unknown {
    return group === 'tau' ? this : undefined;
  }

  /**
   * The customer's message the agent has not seen yet (handed over once: a step after a tool call gets none) and
   * whether the episode ended.
   */
  observe(): TauObservation {
    const userMessage = this.pending;
    this.pending = undefined;
    return { userMessage, ended: this.ended };
  }

  isTerminal(): boolean {
    return this.ended !== undefined;
  }

  /** True once the customer's first message was asked for. */
  get hasStarted(): boolean {
    return this.started;
  }

  /** Why the episode ended, or undefined while it goes on. */
  get endedBy(): TauObservation['ended'] {
    return this.ended;
  }

  /** The customer's first message: `reset(instruction)` of the simulator, asked once. */
  async start(ctx: UserCallContext): Promise<string> {
    if (this.started) throw new Error('tau-bench: the conversation has already started');
    this.started = true;
    return this.hear(await this.user.reset(this.task.instruction, this.ask(ctx)));
  }

  /**
   * The agent's message to the customer (the original's `respond` action): recorded in the session (where the
   * reward looks for required outputs), then the customer's answer, which is returned and becomes the next
   * observation.
   */
  async respond(content: string, ctx: UserCallContext): Promise<string> {
    if (!this.started) throw new Error('tau-bench: respond before the conversation started');
    if (this.ended)
      throw new Error(
        `tau-bench: respond after the episode ended (${this.ended === 'user' ? 'the customer said ###STOP###' : 'a terminate tool ran'})`,
      );
    this.session.respond(content);
    this.conversation.push({ role: 'agent', content });
    return this.hear(await this.user.step(content, this.ask(ctx)));
  }

  /**
   * Runs a domain tool: `args` is the model's raw argument JSON (parsed as Python's `json.loads`, so `100.0` stays a
   * float) or a Python dict. A terminate tool ends the episode.
   */
  call(name: string, args: string | PyDict): TauCallResult {
    const result = this.session.call(name, args);
    if (result.terminate) this.ended ??= 'tool';
    return result;
  }

  /** The original's `calculate_reward` on this session (database hash against the ground truth's, required outputs). */
  reward(): TauReward {
    return this.session.reward(this.task);
  }

  private hear(message: string): string {
    this.conversation.push({ role: 'user', content: message });
    this.pending = message;
    if (message.includes(STOP_TOKEN)) this.ended = 'user';
    return message;
  }

  /** The simulator's model call: through the run's accounting and middleware (purpose `user`), counted and traced. */
  private ask(ctx: UserCallContext): AskUserModel {
    return async (messages) => {
      const model = this.userModel;
      if (!model) throw new Error(`tau-bench: the "${this.user.strategy}" user simulator has no user model`);
      const response = await ctx.callModel(
        { messages: messages.map(toModelMessage) },
        { purpose: USER_PURPOSE, model, signal: ctx.signal },
      );
      if (!response.parts.some((p) => p.type === 'text'))
        throw new Error(
          `tau-bench: the user model (${model.id}) replied without text (finish reason ${response.finishReason})`,
        );
      return responseText(response);
    };
  }
}

function toModelMessage(m: UserTurn): ModelMessage {
  if (m.role === 'system') return { role: 'system', content: m.content };
  return { role: m.role, content: [{ type: 'text', text: m.content }] };
}
