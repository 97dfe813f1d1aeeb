import type { ActionResult } from '../../../core/index.js';
import { errorMessage } from '../../../core/index.js';
import { evaluateExpr } from '../../expr/index.js';
import { renderParameters } from '../render-template.js';
import { WorkflowError } from '../workflow-error.js';
import { callError, callInputs, callOnce, waitsForApproval } from './action-call.js';
import type { NodeHandler, NodeOf } from './node-handler.js';
import { isUserTool, userToolList } from './node-host.js';

/**
 * A tool node: one call through the run's tool registry with its `{{var}}` arguments rendered. Its output (or what
 * `extract` makes of it) goes to `output`; a failed call is retried up to `retries` times, then fails the node (or,
 * with `onError: continue`, sets the output to null and goes on).
 */
export const toolHandler: NodeHandler<NodeOf<'tool'>> = {
  check(node, host) {
    if (!isUserTool(host, node.toolName))
      throw new WorkflowError(
        `node "${node.id}": toolName: there is no tool "${node.toolName}"; registered: ${userToolList(host)}`,
        { nodeId: node.id, field: 'toolName' },
      );
  },
  decide(node, s) {
    const args = renderParameters(node.parameters, s.thread.vars, node.id) as Record<string, unknown>;
    return callOnce(node, node.toolName, args, node.timeoutMs);
  },
  reduce(node, s, _work, decision, results) {
    const t = s.thread;
    const r = results[0];
    const inputs = callInputs(decision);
    if (r?.status === 'success') {
      const output = String(r.output);
      const value = node.extract === undefined ? output : extract(node.id, node.extract, output, r.state);
      t.vars[node.output ?? node.id] = value;
      const outputs = node.extract === undefined ? { output } : { output, value };
      s.finish(node, { status: 'done', inputs, outputs }, s.next(node));
      return;
    }
    if (waitsForApproval(node, s, r)) return;
    if (t.attempts < node.retries) {
      t.attempts++; // the same node runs again next step; this attempt's result stays in the step record
      return;
    }
    if (node.onError === 'continue') {
      t.vars[node.output ?? node.id] = null;
      s.finish(node, { status: 'error', inputs, outputs: null, error: callError(r) }, s.next(node));
      return;
    }
    s.fail(node, inputs, callError(r));
  },
};

/** A tool node's `extract` over its call's output, title and metadata. */
function extract(nodeId: string, source: string, output: string, state: ActionResult['state']): unknown {
  const done = state.status === 'completed' ? state : undefined;
  try {
    return evaluateExpr(source, { output, title: done?.title ?? null, metadata: done?.metadata ?? {} });
  } catch (err) {
    throw new WorkflowError(`node "${nodeId}": extract: ${errorMessage(err)}`, { nodeId, field: 'extract' });
  }
}
