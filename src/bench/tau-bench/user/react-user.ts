import { LlmUser } from './llm-user.js';
import { STOP_TOKEN, reactUserSystemPrompt } from './user-prompts.js';
import type { AskUserModel, UserTurn } from './user-simulator.js';

/**
 * The customer's message in a `react` reply, as `ReactUserSimulationEnv.parse_response` reads it: `###STOP###`
 * anywhere stops; else the text after the one `Thought:` (the original's reading: the thought and the
 * `User Response:` label go to the agent too); else the text after the one `User Response:`. Anything else, and a
 * marker that occurs twice (Python's `a, b = s.split(x)` then raises), is an error.
 */
export function parseReactUserReply(response: string): string {
  if (response.includes(STOP_TOKEN)) return STOP_TOKEN;
  for (const marker of ['Thought:', 'User Response:']) {
    if (!response.includes(marker)) continue;
    const pieces = response.split(marker);
    if (pieces.length > 2)
      throw new Error(
        `user simulator (react): too many values to unpack (expected 2): the reply has "${marker}" ${pieces.length - 1} times`,
      );
    return pieces[1].trim();
  }
  throw new Error(`user simulator (react): Invalid response format: ${response}`);
}

/** Strategy `react` (`ReactUserSimulationEnv`): the model writes a Thought, then the User Response sent to the agent. */
export class ReactUser extends LlmUser {
  override readonly strategy = 'react';

  protected override systemPrompt(instruction: string): string {
    return reactUserSystemPrompt(instruction);
  }

  protected override async generate(messages: readonly UserTurn[], ask: AskUserModel): Promise<string> {
    return parseReactUserReply(await super.generate(messages, ask));
  }
}
