import { z } from 'zod';
import type { CallModel } from './model-call.js';

/** A record a memory stores: what was said or seen, at which step, by whom. */
export const MemoryRecord = z.object({
  step: z.number().int().nonnegative(),
  role: z.string(),
  content: z.string(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type MemoryRecord = z.infer<typeof MemoryRecord>;

/** What a memory's methods are given by the run: who is asking, and a model call counted in the run's usage. */
export interface MemoryContext {
  runId: string;
  step: number;
  signal: AbortSignal;
  /** For memories that summarise with a model: the call goes through the run's middleware and budgets. */
  callModel: CallModel;
}

/**
 * Long-lived memory of a run, beyond the conversation history in `State.messages`. The engine holds it
 * (`EngineOptions.memory`), resets it when a run starts and hands agents a {@link MemoryAccess} whose every
 * read and write is a `memory` event in hooks and the trace.
 */
export interface Memory {
  readonly name: string;
  append(record: MemoryRecord, ctx: MemoryContext): void | Promise<void>;
  /** The `k` records most relevant to `query` (by the memory's own measure: recency, similarity, ...). */
  retrieve(query: string, k: number, ctx: MemoryContext): MemoryRecord[] | Promise<MemoryRecord[]>;
  /** A text summary of what the memory holds. */
  summarize(ctx: MemoryContext): string | Promise<string>;
  /** Drops what the memory's policy says is no longer needed; returns how many records went. */
  evict(ctx: MemoryContext): number | Promise<number>;
  /** Forgets everything (the engine calls it when a run starts). */
  reset(ctx: MemoryContext): void | Promise<void>;
}

/** The run's memory as an agent uses it (`ctx.memory` in agent methods): the run's context is filled in and every call is traced. */
export interface MemoryAccess {
  readonly name: string;
  append(record: Omit<MemoryRecord, 'step'> & { step?: number }): Promise<void>;
  retrieve(query: string, k: number): Promise<MemoryRecord[]>;
  summarize(): Promise<string>;
  evict(): Promise<number>;
}
