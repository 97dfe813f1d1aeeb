import { estimateTokens } from '../context-processor.js';
import { WorkflowError } from '../workflow-error.js';
import { computedHandler, done } from './computed-work.js';
import type { NodeHost } from './node-host.js';
import type { NodeOf } from './node-handler.js';

type ContextNode = NodeOf<'context'>;

/** A context node: its processor rewrites the thread's conversation (a `context_summarised` event says how much). */
export const contextHandler = computedHandler<ContextNode>(async (node, s) => {
  const processor = s.host.processors[node.processor];
  if (!processor) throw unknownProcessor(node, s.host);
  const { ctx, thread } = s;
  const before = thread.context;
  const after = await processor(before, {
    nodeId: node.id,
    config: node.config,
    vars: thread.vars,
    callModel: ctx.callModel,
    signal: ctx.signal,
    onFallback: (f) => ctx.emit('summary_fallback', { node: node.id, ...f }),
  });
  ctx.emit('context_summarised', {
    node: node.id,
    processor: node.processor,
    tokensBefore: estimateTokens(before),
    tokensAfter: estimateTokens(after),
    messagesBefore: before.length,
    messagesAfter: after.length,
  });
  return done(
    { processor: node.processor, config: node.config },
    {
      messages: { before: before.length, after: after.length },
      tokens: { before: estimateTokens(before), after: estimateTokens(after) },
    },
    s.next(node),
    (t) => void (t.context = after),
  );
}, checkProcessor);

/** The node's processor must be a built-in one or registered on the agent. */
function checkProcessor(node: ContextNode, host: NodeHost): void {
  if (!host.processors[node.processor])
    throw new WorkflowError(
      `node "${node.id}": processor: "${node.processor}" is not registered; known: ${Object.keys(host.processors).join(', ')}`,
      { nodeId: node.id, field: 'processor' },
    );
}

/** The error of a processor missing when the node runs (the agent checks it when built; this keeps the message clear). */
function unknownProcessor(node: ContextNode, host: NodeHost): WorkflowError {
  return new WorkflowError(
    `node "${node.id}": processor "${node.processor}" is not registered; known: ${Object.keys(host.processors).join(', ')}`,
    { nodeId: node.id, field: 'processor' },
  );
}
