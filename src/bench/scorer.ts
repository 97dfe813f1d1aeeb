import { z } from 'zod';
import { Usage } from '../core/index.js';
import type { Env, State, StopReason } from '../core/index.js';
import type { BenchTask } from './bench-task.js';

/** What a scorer is given about one finished run. */
export interface ScoreInput {
  task: BenchTask;
  /** The run's final answer (null when it stopped without one). */
  answer: string | null;
  /** `task.expected`. */
  expected: unknown;
  stopReason: StopReason;
  steps: number;
  /** What the run spent (tokens, cost, model calls); absent when the caller did not run it (a scorer tested alone). */
  usage?: Usage;
  /** The agent's final state. */
  state: State | undefined;
  /** The env the run acted in, after the run (custom scorers check end states here). */
  env: Env | undefined;
  traceDir: string | null;
  /** Aborted when the suite run is interrupted (an LLM judge passes it to its model). */
  signal: AbortSignal;
}

/**
 * A scorer's verdict: a score in [0, 1] (the trial's reward), whether it counts as a pass, and why. `usage` is what
 * scoring itself spent (an LLM judge's calls): reported apart from the agent's tokens and cost.
 */
export const Score = z.object({
  score: z.number().min(0).max(1),
  pass: z.boolean(),
  explanation: z.string(),
  usage: Usage.optional(),
  /** What the scorer wants recorded in the result line besides its verdict (tau-bench: reward, database hashes); a JSON object. */
  details: z.record(z.string(), z.unknown()).optional(),
});
export type Score = z.infer<typeof Score>;

/** Scores one run. May be async (an LLM judge). Throwing marks that task as a scoring error; the suite goes on. */
export interface Scorer {
  readonly name: string;
  score(input: ScoreInput): Score | Promise<Score>;
}

/** A pass/fail score with score 1 or 0. */
export function verdict(pass: boolean, explanation: string): Score {
  return { score: pass ? 1 : 0, pass, explanation };
}

/** Short, single-line rendering of a value for explanations. */
export function show(value: unknown, max = 120): string {
  const s = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** The accepted answers of a task: a list means "any of these", anything else is one answer. */
export function acceptedAnswers(expected: unknown): unknown[] {
  return Array.isArray(expected) ? expected : [expected];
}
