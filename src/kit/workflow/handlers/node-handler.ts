import type { ActionResult, Decision } from '../../../core/index.js';
import type { NodeConfig, NodeKind } from '../nodes/node-config.js';
import type { NodeHost } from './node-host.js';
import type { NodeStep } from './node-step.js';

/** The node config of kind `K`. */
export type NodeOf<K extends NodeKind> = Extract<NodeConfig, { kind: K }>;

/** What a handler's DECIDE returns: the step's decision, and what the same step's REDUCE is to carry out. */
export interface Decided<W> {
  decision: Decision;
  work?: W;
}

/**
 * How a WorkflowAgent runs one kind of node: `decide` in DECIDE, `reduce` in REDUCE, `check` when the agent is
 * built. A handler keeps nothing of a run: what `decide` works out for `reduce` it returns as `work`, which the run
 * carries in its context to the same step's REDUCE.
 */
export interface NodeHandler<N extends NodeConfig, W = never> {
  /** Refuses a name the node refers to that the agent lacks (a tool, a reducer, a processor, a model resolver). */
  check?(node: N, host: NodeHost): void;
  decide(node: N, s: NodeStep): Decided<W> | Promise<Decided<W>>;
  /**
   * Records the node (or not yet: a retry, a tool-loop turn, a wait) and moves the thread on. `work` is what this
   * step's DECIDE returned: undefined when DECIDE did not run this step (a run forked with a forced decision).
   */
  reduce(node: N, s: NodeStep, work: W | undefined, decision: Decision, results: readonly ActionResult[]): void;
}
