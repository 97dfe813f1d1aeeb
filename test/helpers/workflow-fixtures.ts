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
