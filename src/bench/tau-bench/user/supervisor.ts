import { reflectPrompt, verifyPrompt } from './user-prompts.js';
import type { AskUserModel, UserTurn } from './user-simulator.js';

/** `map_role_label`: `user` (the agent, roles being flipped) is the Customer, `assistant` the Agent, others capitalized. */
function roleLabel(role: string): string {
  if (role === 'user') return 'Customer';
  if (role === 'assistant') return 'Agent';
  return role.charAt(0).toUpperCase() + role.slice(1).toLowerCase();
}

/** The supervisor's transcript of a conversation: one `Label: content` line per message, the system prompt included. */
export function supervisorTranscript(messages: readonly UserTurn[]): string {
  return messages.map((m) => `${roleLabel(m.role)}: ${m.content}`).join('\n');
}

/** `verify()`: asks the supervisor whether `response` is satisfactory; true when its answer contains "true" (any case). */
export async function verifyReply(
  response: string,
  messages: readonly UserTurn[],
  ask: AskUserModel,
): Promise<boolean> {
  const answer = await ask(
    [{ role: 'user', content: verifyPrompt(supervisorTranscript(messages), response) }],
    'verify',
  );
  return answer.toLowerCase().includes('true');
}

/**
 * `reflect()`: asks the supervisor for a reflection on a rejected `response` and returns the new response after the
 * one `Response:` of its answer (the original unpacks `split("Response:")` into two: no marker or two is an error).
 */
export async function reflectOnReply(
  response: string,
  messages: readonly UserTurn[],
  ask: AskUserModel,
): Promise<string> {
  const answer = await ask(
    [{ role: 'user', content: reflectPrompt(supervisorTranscript(messages), response) }],
    'reflect',
  );
  const pieces = answer.split('Response:');
  if (pieces.length !== 2) {
    const why =
      pieces.length < 2 ? 'not enough values to unpack (expected 2, got 1)' : 'too many values to unpack (expected 2)';
    throw new Error(
      `user simulator (reflection): ${why}: the supervisor's reflection must hold "Response:" once, it holds it ${pieces.length - 1} times`,
    );
  }
  return pieces[1].trim();
}
