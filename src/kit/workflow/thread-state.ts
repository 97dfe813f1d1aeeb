import { z } from 'zod';
import { ModelMessage, Tokens, type State } from '../../core/index.js';

/** What one node step did: its inputs, its outputs, how it ended, and what it cost. */
export const NodeRecord = z.object({
  node: z.string(),
  kind: z.string(),
  /** The engine step it finished in. */
  step: z.number().int(),
  status: z.enum(['done', 'error', 'skipped']),
  inputs: z.unknown(),
  outputs: z.unknown(),
  error: z.string().optional(),
  attempts: z.number().int().positive(),
  tokens: Tokens.optional(),
  /**
   * Wall-clock milliseconds from the node's first DECIDE to its end, retries and tool-loop turns included;
   * absent in traces written before it was recorded.
   */
  executionTimeMs: z.number().nonnegative().optional(),
});
export type NodeRecord = z.infer<typeof NodeRecord>;

/** An LLM node between turns of its tool loop. */
export const ActiveLLM = z.object({
  node: z.string(),
  iteration: z.number().int().nonnegative(),
  /** The node's own turns (its user message first), appended to the thread's context when it is done. */
  messages: z.array(ModelMessage),
  text: z.string(),
  toolCalls: z.number().int().nonnegative(),
  /** Tokens of this visit's turns so far. */
  tokens: Tokens,
});
export type ActiveLLM = z.infer<typeof ActiveLLM>;

/** One branch of a fork as it ended: the variables it set (changed from the fork's), or its error. */
export const BranchOutcome = z.object({
  branch: z.string(),
  status: z.enum(['done', 'error']),
  vars: z.record(z.string(), z.unknown()),
  error: z.string().optional(),
  runId: z.string(),
  traceDir: z.string().nullable(),
  attempts: z.number().int().positive(),
  /** True when a resumed run took this branch as its predecessor finished it, without running it. */
  reused: z.boolean().optional(),
  /** Order of finishing (0 first), what the `first` merge uses. */
  finished: z.number().int().nonnegative(),
});
export type BranchOutcome = z.infer<typeof BranchOutcome>;

/** The thread: everything a workflow run knows, in the run's typed state (so the trace rebuilds it at any step). */
export const ThreadState = z.object({
  workflow: z.string(),
  status: z.enum(['running', 'completed', 'failed', 'waiting']),
  vars: z.record(z.string(), z.unknown()),
  /** The node to run next (null once the thread ended). */
  current: z.string().nullable(),
  /** Attempts made at the current node so far (retries). */
  attempts: z.number().int().nonnegative(),
  completed: z.array(NodeRecord),
  /** Tokens spent per node id, summed over its runs. */
  tokens: z.record(z.string(), Tokens),
  /** Rounds done by each loop that is running, by loop-start id. */
  loops: z.record(z.string(), z.number().int().nonnegative()),
  /** The thread's conversation, shared by its LLM nodes and rewritten by context processors. */
  context: z.array(ModelMessage),
  active: ActiveLLM.nullable(),
  /** Branch outcomes waiting for their join, by fork id. */
  forks: z.record(z.string(), z.array(BranchOutcome)),
  /** Why the thread failed or what it waits for. */
  reason: z.string().optional(),
});
export type ThreadState = z.infer<typeof ThreadState>;

/** The state of a workflow run: the base state plus the thread. */
export type WorkflowState = State & { thread: ThreadState };
