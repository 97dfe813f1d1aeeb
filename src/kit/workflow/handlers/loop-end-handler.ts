import { WorkflowError } from '../workflow-error.js';
import { computedHandler, done } from './computed-work.js';
import { nodeCondition } from './condition-handler.js';
import type { NodeOf } from './node-handler.js';

/**
 * A loop end: goes round again (to the body's first node) while `while` holds (default: always) and fewer than the
 * loop start's `max` rounds ran; else leaves by its edge. The record says `bound: max` when the bound ended it.
 */
export const loopEndHandler = computedHandler<NodeOf<'loop-end'>>((node, s) => {
  const start = s.host.workflow.node(node.loop);
  if (start.kind !== 'loop-start')
    throw new WorkflowError(`loop end "${node.id}" closes "${node.loop}", which is not a loop start`, {
      nodeId: node.id,
    });
  const round = (s.thread.loops[start.id] ?? 0) + 1;
  const wants = node.while === undefined ? true : nodeCondition(node.id, 'while', node.while, s.thread.vars);
  const again = wants && round < start.max;
  const outputs = { round, again, ...(wants && !again ? { bound: start.max } : {}) };
  return done(
    { loop: start.id, ...(node.while ? { while: node.while } : {}) },
    outputs,
    again ? s.next(start) : s.next(node),
    (t) => {
      if (again) t.loops[start.id] = round;
      else delete t.loops[start.id];
    },
  );
});
