import { z } from 'zod';
import { QitosError, markErrorClass, newId, type Message } from '../core/index.js';

/** Text content: a string, or an array of text parts (other part kinds are refused: the agent reads text). */
const Content = z.union([
  z.string(),
  z.array(z.object({ type: z.literal('text', 'only text content parts are supported'), text: z.string() })),
]);

const ChatMessage = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: Content }),
  z.object({ role: z.literal('developer'), content: Content }),
  z.object({ role: z.literal('user'), content: Content }),
  z.object({
    role: z.literal('assistant'),
    content: Content.nullable().optional(),
    tool_calls: z
      .array(z.unknown())
      .max(0, 'client-side tool calls are not supported: the agent runs its own tools')
      .optional(),
  }),
]);
export type ChatMessage = z.infer<typeof ChatMessage>;

/**
 * The body of `POST /v1/chat/completions`. Fields the agent cannot honour are refused rather than ignored
 * (client-side `tools`, `n` > 1); sampling fields are accepted and left to the agent's own model settings.
 */
export const ChatCompletionRequest = z.object({
  model: z.string().min(1),
  messages: z.array(ChatMessage).min(1, 'messages must hold at least one message'),
  stream: z.boolean().nullable().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullable().optional(),
  n: z.literal(1, 'only n = 1 is supported').nullable().optional(),
  tools: z
    .array(z.unknown())
    .max(0, 'client-side tools are not supported: the agent runs its own tools')
    .nullable()
    .optional(),
  user: z.string().optional(),
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequest>;

/** What a run is started from: the task objective, and the conversation before it as history (empty for one message). */
export interface ChatTask {
  objective: string;
  /** The whole conversation (ending with the last user message) when it has more than that message, else empty. */
  history: Message[];
}

/**
 * The task and history of a chat request. The last message must be the user's: its text is the objective.
 * System and developer messages become one leading user message headed "Instructions from the client:" (the
 * agent's own system prompt stays its own). With earlier turns, the history is the whole conversation ending
 * with that user message, so an agent that adds the task only to an empty history (ReActAgent) continues it.
 */
export function chatTask(messages: ChatMessage[], agent: string): ChatTask {
  const last = messages[messages.length - 1];
  if (last.role !== 'user')
    throw new ChatRequestError('the last message must have role "user"', `messages.${messages.length - 1}.role`);
  const objective = textOf(last.content);
  if (!objective.trim())
    throw new ChatRequestError('the last user message must not be empty', `messages.${messages.length - 1}.content`);
  const instructions = messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => textOf(m.content))
    .filter((t) => t.trim());
  const turns = messages.filter((m) => m.role === 'user' || m.role === 'assistant');
  if (turns.length === 1 && !instructions.length) return { objective, history: [] };
  const now = Date.now();
  const history: Message[] = [];
  if (instructions.length)
    history.push(userMessage(`Instructions from the client:\n${instructions.join('\n\n')}`, agent, now));
  for (const m of turns) {
    const text = textOf(m.content ?? '');
    history.push(m.role === 'user' ? userMessage(text, agent, now) : assistantMessage(text, now));
  }
  return { objective, history };
}

/** A request that is valid JSON of the right shape but cannot be run; `param` names the field. */
export class ChatRequestError extends QitosError {
  static {
    markErrorClass(this, 'ChatRequestError');
  }

  constructor(
    message: string,
    readonly param: string,
  ) {
    super('http', message);
    this.name = 'ChatRequestError';
  }
}

function textOf(content: z.infer<typeof Content>): string {
  return typeof content === 'string' ? content : content.map((p) => p.text).join('');
}

function userMessage(text: string, agent: string, created: number): Message {
  return {
    role: 'user',
    info: { id: newId('msg'), role: 'user', time: { created }, agent },
    parts: [{ id: newId('prt'), type: 'text', text }],
  };
}

function assistantMessage(text: string, created: number): Message {
  const tokens = { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } };
  return {
    role: 'assistant',
    info: { id: newId('msg'), role: 'assistant', time: { created, completed: created }, tokens, cost: null },
    parts: [{ id: newId('prt'), type: 'text', text }],
  };
}
