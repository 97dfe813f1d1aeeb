import { z } from 'zod';
import { StopReason, Tokens, Usage } from '../core/index.js';

/**
 * One line of `results.jsonl`: one task in one epoch, self-contained (no other file is needed to read it).
 * `traceDir` is relative to the run folder. `error` is set when the task could not be scored normally:
 * `errorKind` says where it failed (the scorer threw, the agent could not be built, the run ended in error).
 */
export const ResultLine = z.object({
  taskId: z.string(),
  epoch: z.number().int().positive(),
  pass: z.boolean(),
  score: z.number().min(0).max(1),
  explanation: z.string(),
  stopReason: StopReason,
  steps: z.number().int().nonnegative(),
  /** Total tokens (input + output + cache reads/writes). */
  tokens: z.number().int().nonnegative(),
  tokenDetail: Tokens,
  /** Cost in USD, null when a price was unknown. */
  cost: z.number().nonnegative().nullable(),
  modelCalls: z.number().int().nonnegative(),
  durationMs: z.number().nonnegative(),
  traceDir: z.string().nullable(),
  runId: z.string().nullable(),
  answer: z.string().nullable(),
  error: z.string().nullable(),
  errorKind: z.enum(['scorer', 'setup', 'run']).nullable(),
  /**
   * Where a bug in the user's code (agent, factory) was thrown, as `file:line:col`, when the error was one (see the
   * trace's failures for the stack).
   */
  errorAt: z.string().optional(),
  /** What scoring spent (an LLM judge's calls), apart from the agent's `tokens` and `cost`; absent when nothing. */
  scorerUsage: Usage.optional(),
  /**
   * The part of `tokens`/`cost`/`modelCalls` spent by the run's calls besides the agent's steps, by purpose (a
   * user simulator's `user`, `compaction`, ...); absent when there were none.
   */
  usageByPurpose: z.record(z.string(), Usage).optional(),
  /** What the scorer recorded besides its verdict (tau-bench: `reward`, the final `dbHash`, ...); any JSON object. */
  details: z.record(z.string(), z.unknown()).optional(),
  finishedAt: z.string(),
});
export type ResultLine = z.infer<typeof ResultLine>;

/** The key of a task/epoch pair. */
export function pairKey(taskId: string, epoch: number): string {
  return `${JSON.stringify(taskId)}#${epoch}`;
}
