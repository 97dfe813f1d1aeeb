import { FORK_TOOL } from '../fork-tool.js';
import type { BranchOutcome } from '../thread-state.js';
import { NO_TIMEOUT_MS, callFailed, callOnce } from './action-call.js';
import type { NodeHandler, NodeOf } from './node-handler.js';

/**
 * A fork node: its branches run as concurrent child runs through the internal fork tool; their outcomes wait in the
 * thread for the fork's join, which runs next.
 */
export const forkHandler: NodeHandler<NodeOf<'fork'>> = {
  decide: (node) => callOnce(node, FORK_TOOL, { fork: node.id }, NO_TIMEOUT_MS),
  reduce(node, s, _work, decision, results) {
    const r = results[0];
    if (r?.status !== 'success') return callFailed(node, s, decision, r);
    const { workflow } = s.host;
    const outcomes = JSON.parse(String(r.output)) as BranchOutcome[];
    s.thread.forks[node.id] = outcomes;
    const join = [...workflow.nodes.values()].find((n) => n.kind === 'join' && n.fork === node.id)!;
    s.finish(
      node,
      {
        status: 'done',
        inputs: { branches: workflow.successors(node.id) },
        outputs: { branches: outcomes.map(({ vars: _v, ...o }) => o) },
      },
      join.id,
    );
  },
};
