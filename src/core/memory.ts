import type { Message } from './message.js';

/** A record a memory stores. */
export interface MemoryRecord {
  step: number;
  role: string;
  content: string;
  metadata?: Record<string, unknown>;
}

/**
 * Long-lived memory an agent may consult in `prepare`/`decide` (window, summary, vector stores live in kit/memory).
 * The conversation history itself lives in `State.messages`.
 */
export interface Memory {
  readonly name: string;
  append(record: MemoryRecord): Promise<void> | void;
  retrieve(query: { text?: string; limit?: number; step?: number }): Promise<MemoryRecord[]> | MemoryRecord[];
  /** Messages to place before the history in the model input (optional). */
  retrieveMessages?(query: { text?: string; limit?: number }): Promise<Message[]> | Message[];
  reset(): Promise<void> | void;
}
