import type { ActionResult, Decision } from '../../../core/index.js';
import { newActionId } from '../../../core/index.js';
import type { NodeConfig } from '../nodes/node-config.js';
import type { Decided } from './node-handler.js';
import type { NodeStep } from './node-step.js';

/** The longest timer Node allows: a fork's or subworkflow's call lasts as long as its child runs do. */
export const NO_TIMEOUT_MS = 2 ** 31 - 1;

/** The step's `act` decision of a node that runs as one tool call (a tool node, a fork, a subworkflow). */
export function callOnce(
  node: NodeConfig,
  name: string,
  args: Record<string, unknown>,
  timeoutMs?: number,
): Decided<never> {
  return {
    decision: {
      mode: 'act',
      actions: [{ id: newActionId(), name, args, ...(timeoutMs ? { timeoutMs } : {}) }],
      rationale: `${node.kind} node "${node.id}"`,
    },
  };
}

/** What the node's call was given (its record's inputs when it failed, and a tool node's when it ran). */
export function callInputs(decision: Decision): unknown {
  return decision.mode === 'act' ? decision.actions[0].args : {};
}

/**
 * REDUCE of a node whose call did not succeed, first part: a permission ask no one could answer makes the thread
 * wait on this node, as for an interrupt, until `qitos workflow resume --approve` (or --reject) answers it; the node
 * then runs again. True when it waits (nothing else to do).
 */
export function waitsForApproval(node: NodeConfig, s: NodeStep, r: ActionResult | undefined): boolean {
  const ask = r?.permission;
  if (ask?.decidedBy !== 'default' || ask.action !== 'ask') return false;
  s.thread.status = 'waiting';
  s.thread.reason =
    `node "${node.id}" needs approval ` +
    `for ${ask.key} ${ask.subjects.join(' ; ') || '(no input)'} (resume with --approve or ` +
    `--reject)`;
  return true;
}

/** REDUCE of a fork's or subworkflow's call that did not succeed: the node waits for an approval, or fails. */
export function callFailed(node: NodeConfig, s: NodeStep, decision: Decision, r: ActionResult | undefined): void {
  if (!waitsForApproval(node, s, r)) s.fail(node, callInputs(decision), callError(r));
}

/** Why the node's call failed, as its record says. */
export function callError(r: ActionResult | undefined): string {
  return r?.error ?? 'no result';
}
