import { SUBWORKFLOW_TOOL } from '../subworkflow-tool.js';
import { NO_TIMEOUT_MS, callFailed, callOnce } from './action-call.js';
import type { NodeHandler, NodeOf } from './node-handler.js';

/** A subworkflow node: the other workflow runs as a child run through the internal tool; its variables go to `output`. */
export const subworkflowHandler: NodeHandler<NodeOf<'subworkflow'>> = {
  decide: (node) => callOnce(node, SUBWORKFLOW_TOOL, { node: node.id }, NO_TIMEOUT_MS),
  reduce(node, s, _work, decision, results) {
    const r = results[0];
    if (r?.status !== 'success') return callFailed(node, s, decision, r);
    const vars = JSON.parse(String(r.output)) as Record<string, unknown>;
    s.thread.vars[node.output ?? node.id] = vars;
    s.finish(
      node,
      {
        status: 'done',
        inputs: node.path ? { path: node.path } : { inline: true },
        outputs: { vars, ...(r.state.status === 'completed' ? r.state.metadata : {}) },
      },
      s.next(node),
    );
  },
};
