import { errorMessage } from '../../../core/index.js';
import { evaluateCondition } from '../../expr/index.js';
import { WorkflowError } from '../workflow-error.js';
import { computedHandler, done } from './computed-work.js';
import type { NodeOf } from './node-handler.js';

/** A condition node: evaluates `expression` over the variables and goes to `then` or `else`. */
export const conditionHandler = computedHandler<NodeOf<'condition'>>((node, s) => {
  const value = nodeCondition(node.id, 'expression', node.expression, s.thread.vars);
  const next = value ? node.then : node.else;
  return done({ expression: node.expression }, { value, next }, next);
});

/** A node's condition (`field` of node `nodeId`) over the variables; an error names the node and the field. */
export function nodeCondition(nodeId: string, field: string, source: string, vars: Record<string, unknown>): boolean {
  try {
    return evaluateCondition(source, vars);
  } catch (err) {
    throw new WorkflowError(`node "${nodeId}": ${field}: ${errorMessage(err)}`, { nodeId, field });
  }
}
