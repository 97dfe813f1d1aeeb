import { z } from 'zod';
import { StopReason } from './stop-reason.js';
import { Message } from './message.js';

/**
 * The base state every agent's state extends: `BaseState.extend({ scratchpad: z.array(z.string()) })`.
 * `messages` is the conversation history (messages with parts); the engine appends to it on the model path.
 */
export const BaseState = z.object({
  task: z.string(),
  taskId: z.string(),
  step: z.number().int().nonnegative(),
  maxSteps: z.number().int().positive(),
  finalResult: z.string().nullable(),
  stopReason: StopReason.nullable(),
  messages: z.array(Message),
  metrics: z.record(z.string(), z.number()),
  metadata: z.record(z.string(), z.unknown()),
});
export type State = z.infer<typeof BaseState>;

/** Fields of a fresh state for a task (spread it into your own `initState`). */
export function baseState(task: { id: string; objective: string }, maxSteps = 30): State {
  return {
    task: task.objective,
    taskId: task.id,
    step: 0,
    maxSteps,
    finalResult: null,
    stopReason: null,
    messages: [],
    metrics: {},
    metadata: {},
  };
}
