import { LlmUser } from './llm-user.js';
import { verifyReply } from './supervisor.js';
import type { AskUserModel, UserTurn } from './user-simulator.js';

/**
 * Strategy `verify` (`VerifyUserSimulationEnv`): up to `maxAttempts` (3) candidate replies, each judged by the
 * supervisor prompt; the first accepted one is sent and joins the conversation. When none is accepted the last
 * candidate is sent but, as in the original, does not join the simulator's own conversation.
 */
export class VerifyUser extends LlmUser {
  override readonly strategy = 'verify';

  constructor(readonly maxAttempts = 3) {
    super();
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1)
      throw new RangeError(`VerifyUser: maxAttempts must be a positive integer, got ${maxAttempts}`);
  }

  protected override async generate(messages: readonly UserTurn[], ask: AskUserModel): Promise<string> {
    let candidate = '';
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      candidate = await ask([...messages], 'reply');
      if (await verifyReply(candidate, messages, ask)) {
        this.messages.push({ role: 'assistant', content: candidate });
        return candidate;
      }
    }
    return candidate;
  }
}
