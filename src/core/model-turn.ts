import type { Decision } from './decision.js';
import type { ParseError } from './errors.js';
import type { AssistantMessage } from './message.js';
import type { MemoryRecord } from './memory.js';
import type { ModelRequest, ModelResponse, RequestHashes } from './model.js';

/**
 * One turn of the model path as a value: the request as built (system prompt + history + the step's user
 * message), what the model received after middleware (policies may rewrite it), its response, and what the
 * parser made of it. The engine records it in the step's `model` record and appends `message` to the history.
 */
export interface ModelTurn {
  /** The request the turn built, before middleware. */
  built: ModelRequest;
  /** The request the model received, and its hashes (what replay compares). */
  sent: { request: ModelRequest; hashes: RequestHashes };
  system: string | undefined;
  response: ModelResponse;
  /** Wall time of the model call, in ms (with retries). */
  latencyMs: number;
  /** Attempts the call took (1 without retries). */
  attempts: number;
  /** The assistant message the reply became (already in the history). */
  message: AssistantMessage;
  /** What memory retrieval gave the model this turn (`EngineOptions.memoryInput`): the query and the records. */
  memory?: { query: string; records: MemoryRecord[] };
  /** The parser's verdict: the decision, or the error fed back to the model. */
  outcome: Decision | ParseError;
}
