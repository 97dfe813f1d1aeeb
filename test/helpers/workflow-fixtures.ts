import { z } from 'zod';
import { defineTool } from '../../src/core/index.js';
import type { WorkflowInput } from '../../src/kit/workflow/index.js';

/** A tool node's tool in the workflow tests: returns its `text` argument. */
export const echo = defineTool({
  id: 'echo',
  description: 'Echoes.',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

/**
 * The JSON form of start -> fork `fan` -> branches `a` and `b` -> join `j` (output `both`) -> end `e`: two branches,
 * each a child run under threads/. By default both branches are `echo` tool nodes (outputs `ra`, `rb`).
 */
export function fanOutWorkflow(
  options: { name?: string; b?: Record<string, unknown>; result?: string } = {},
): WorkflowInput & { name: string } {
  return {
    name: options.name ?? 'fan-out',
    nodes: [
      { kind: 'start', id: 's' },
      { kind: 'fork', id: 'fan' },
      { kind: 'tool', id: 'a', toolName: 'echo', parameters: { text: 'A' }, output: 'ra' },
      options.b ?? { kind: 'tool', id: 'b', toolName: 'echo', parameters: { text: 'B' }, output: 'rb' },
      { kind: 'join', id: 'j', fork: 'fan', output: 'both' },
      { kind: 'end', id: 'e', ...(options.result ? { result: options.result } : {}) },
    ],
    edges: [
      { from: 's', to: 'fan' },
      { from: 'fan', to: 'a' },
      { from: 'fan', to: 'b' },
      { from: 'a', to: 'j' },
      { from: 'b', to: 'j' },
      { from: 'j', to: 'e' },
    ],
  };
}

/**
 * The JSON form of start -> fork `fan` (one branch at a time: `a` finishes before `b1` starts) -> branch `a`, branch
 * `b1` -> `b2` -> join `j` (output `branches`) -> `after` -> end: every work node a call of the `count` tool with its
 * own id, so a test can kill a run inside branch b (at `b2`) and see which nodes a resumed run calls again.
 */
export function branchyWorkflow(): WorkflowInput & { name: string } {
  return {
    name: 'branchy',
    nodes: [
      { kind: 'start', id: 's' },
      { kind: 'fork', id: 'fan', concurrency: 1 },
      { kind: 'tool', id: 'a', toolName: 'count', parameters: { node: 'a' } },
      { kind: 'tool', id: 'b1', toolName: 'count', parameters: { node: 'b1' } },
      { kind: 'tool', id: 'b2', toolName: 'count', parameters: { node: 'b2' } },
      { kind: 'join', id: 'j', fork: 'fan', output: 'branches' },
      { kind: 'tool', id: 'after', toolName: 'count', parameters: { node: 'after' } },
      { kind: 'end', id: 'e' },
    ],
    edges: [
      { from: 's', to: 'fan' },
      { from: 'fan', to: 'a' },
      { from: 'fan', to: 'b1' },
      { from: 'a', to: 'j' },
      { from: 'b1', to: 'b2' },
      { from: 'b2', to: 'j' },
      { from: 'j', to: 'after' },
      { from: 'after', to: 'e' },
    ],
  };
}
