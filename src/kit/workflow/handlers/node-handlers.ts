import type { NodeConfig, NodeKind } from '../nodes/node-config.js';
import { conditionHandler } from './condition-handler.js';
import { contextHandler } from './context-handler.js';
import { endHandler } from './end-handler.js';
import { forkHandler } from './fork-handler.js';
import { interruptHandler } from './interrupt-handler.js';
import { joinHandler } from './join-handler.js';
import { llmHandler } from './llm-handler.js';
import { loopEndHandler } from './loop-end-handler.js';
import { loopStartHandler } from './loop-start-handler.js';
import type { NodeHandler, NodeOf } from './node-handler.js';
import { startHandler } from './start-handler.js';
import { subworkflowHandler } from './subworkflow-handler.js';
import { toolHandler } from './tool-handler.js';

/** The handler of every node kind (a constant table: handlers keep nothing, so every agent and run shares it). */
const NODE_HANDLERS: { readonly [K in NodeKind]: NodeHandler<NodeOf<K>, unknown> } = Object.freeze({
  start: startHandler,
  end: endHandler,
  llm: llmHandler,
  tool: toolHandler,
  condition: conditionHandler,
  'loop-start': loopStartHandler,
  'loop-end': loopEndHandler,
  fork: forkHandler,
  join: joinHandler,
  context: contextHandler,
  subworkflow: subworkflowHandler,
  interrupt: interruptHandler,
});

/** How a node of `node`'s kind runs. */
export function handlerOf(node: NodeConfig): NodeHandler<NodeConfig, unknown> {
  return NODE_HANDLERS[node.kind] as NodeHandler<NodeConfig, unknown>;
}
