import type { NodeConfig } from '../nodes/node-config.js';
import type { NodeRecord, ThreadState } from '../thread-state.js';
import type { Decided, NodeHandler } from './node-handler.js';
import type { NodeHost } from './node-host.js';
import type { NodeStep } from './node-step.js';

/**
 * What DECIDE works out for a node that runs no action (start, end, condition, loops, join, context, interrupt):
 * its record, where the thread goes, and what else changes, for REDUCE to carry out.
 */
export interface ComputedWork {
  status: NodeRecord['status'];
  inputs: unknown;
  outputs: unknown;
  next: string | null;
  /** What REDUCE changes in the thread besides recording the node. */
  apply?: (t: ThreadState, s: NodeStep) => void;
  /** An interrupt that waits has not run: it is not recorded, and runs when the thread is resumed with its variable. */
  waits?: true;
}

/** The work of a node that ran: recorded `done`, then `next`. */
export function done(
  inputs: unknown,
  outputs: unknown,
  next: string | null,
  apply?: ComputedWork['apply'],
): ComputedWork {
  return { status: 'done', inputs, outputs, next, ...(apply ? { apply } : {}) };
}

/** REDUCE of a computed node: what it changes, then its record (unless it waits). */
export function reduceComputed(node: NodeConfig, s: NodeStep, work: ComputedWork | undefined): void {
  if (!work) return; // DECIDE did not run this step (a forced decision): the node is worked out again next step
  work.apply?.(s.thread, s);
  if (!work.waits) s.finish(node, { status: work.status, inputs: work.inputs, outputs: work.outputs }, work.next);
}

/** The handler of a kind worked out in DECIDE (a `wait` decision) by `compute` and carried out in REDUCE. */
export function computedHandler<N extends NodeConfig>(
  compute: (node: N, s: NodeStep) => ComputedWork | Promise<ComputedWork>,
  check?: (node: N, host: NodeHost) => void,
): NodeHandler<N, ComputedWork> {
  return {
    ...(check ? { check } : {}),
    decide(node, s) {
      const work = compute(node, s);
      return work instanceof Promise ? work.then((w) => waiting(node, w)) : waiting(node, work);
    },
    reduce: reduceComputed,
  };
}

/** The `wait` decision of a computed node, with its work. */
function waiting(node: NodeConfig, work: ComputedWork): Decided<ComputedWork> {
  return { decision: { mode: 'wait', rationale: `${node.kind} node "${node.id}"` }, work };
}
