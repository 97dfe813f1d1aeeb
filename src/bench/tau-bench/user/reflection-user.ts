import { LlmUser } from './llm-user.js';
import { reflectOnReply, verifyReply } from './supervisor.js';
import type { AskUserModel, UserTurn } from './user-simulator.js';

/**
 * Strategy `reflection` (`ReflectionUserSimulationEnv`): a reply the supervisor rejects is reflected on, the
 * supervisor's new response is added to a copy of the conversation as an agent (`user`) message, and the customer
 * answers again; up to `maxAttempts` (2) replies in all. When every reply is rejected, the first is sent. As in the
 * original, every reply generated joins the simulator's conversation, the rejected ones too.
 */
export class ReflectionUser extends LlmUser {
  override readonly strategy = 'reflection';

  constructor(readonly maxAttempts = 2) {
    super();
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1)
      throw new RangeError(`ReflectionUser: maxAttempts must be a positive integer, got ${maxAttempts}`);
  }

  protected override async generate(messages: readonly UserTurn[], ask: AskUserModel): Promise<string> {
    const current = [...messages];
    const initial = await super.generate(current, ask);
    if (await verifyReply(initial, current, ask)) return initial;
    for (let attempt = 1; attempt < this.maxAttempts; attempt++) {
      const rewritten = await reflectOnReply(initial, current, ask);
      current.push({ role: 'user', content: rewritten });
      const reply = await super.generate(current, ask);
      if (await verifyReply(reply, current, ask)) return reply;
    }
    return initial;
  }
}
