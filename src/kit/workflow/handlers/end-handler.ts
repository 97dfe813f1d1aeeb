import { renderTemplate } from '../render-template.js';
import { reduceComputed, type ComputedWork } from './computed-work.js';
import type { NodeHandler, NodeOf } from './node-handler.js';

/** An end node: the run's final answer is its `result` rendered, else the variables as JSON; the thread completes. */
export const endHandler: NodeHandler<NodeOf<'end'>, ComputedWork> = {
  decide(node, s) {
    const vars = s.thread.vars;
    const answer = node.result !== undefined ? renderTemplate(node.result, vars, node.id) : JSON.stringify(vars);
    return {
      decision: { mode: 'final', answer, rationale: `end node "${node.id}"` },
      work: {
        status: 'done',
        inputs: {},
        outputs: { result: answer },
        next: null,
        apply: (t) => void (t.status = 'completed'),
      },
    };
  },
  reduce: reduceComputed,
};
