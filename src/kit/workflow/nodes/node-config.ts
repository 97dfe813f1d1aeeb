import { WorkflowError } from '../workflow-error.js';
import { ConditionNodeConfig } from './condition-node-config.js';
import { ContextProcessorConfig } from './context-processor-config.js';
import { EndNodeConfig } from './end-node-config.js';
import { ForkNodeConfig } from './fork-node-config.js';
import { InterruptNodeConfig } from './interrupt-node-config.js';
import { JoinNodeConfig } from './join-node-config.js';
import { LLMNodeConfig } from './llm-node-config.js';
import { LoopEndNodeConfig } from './loop-end-node-config.js';
import { LoopStartNodeConfig } from './loop-start-node-config.js';
import { StartNodeConfig } from './start-node-config.js';
import { SubworkflowNodeConfig } from './subworkflow-node-config.js';
import { ToolNodeConfig } from './tool-node-config.js';

/** Any node config. */
export type NodeConfig =
  | LLMNodeConfig
  | ToolNodeConfig
  | ContextProcessorConfig
  | StartNodeConfig
  | EndNodeConfig
  | ForkNodeConfig
  | JoinNodeConfig
  | LoopStartNodeConfig
  | LoopEndNodeConfig
  | ConditionNodeConfig
  | SubworkflowNodeConfig
  | InterruptNodeConfig;

/** Every node kind's class, by kind. */
export const NODE_CONFIGS = {
  llm: LLMNodeConfig,
  tool: ToolNodeConfig,
  context: ContextProcessorConfig,
  start: StartNodeConfig,
  end: EndNodeConfig,
  fork: ForkNodeConfig,
  join: JoinNodeConfig,
  'loop-start': LoopStartNodeConfig,
  'loop-end': LoopEndNodeConfig,
  condition: ConditionNodeConfig,
  subworkflow: SubworkflowNodeConfig,
  interrupt: InterruptNodeConfig,
} as const;

/** A node kind. */
export type NodeKind = keyof typeof NODE_CONFIGS;

/** Reads any node config from its JSON form `{ kind, id, ... }`; an unknown kind is a WorkflowError naming the node. */
export function nodeConfigFromJSON(json: unknown): NodeConfig {
  if (!json || typeof json !== 'object' || Array.isArray(json))
    throw new WorkflowError(
      `a node must be an object with a kind and an id, got ${json === null ? 'null' : Array.isArray(json) ? 'an array' : typeof json}`,
    );
  const { kind, id } = json as { kind?: unknown; id?: unknown };
  const name = typeof id === 'string' ? `"${id}"` : '(unnamed)';
  if (typeof kind !== 'string' || !Object.hasOwn(NODE_CONFIGS, kind)) {
    throw new WorkflowError(
      `node ${name}: kind: expected one of ${Object.keys(NODE_CONFIGS).join(', ')}, got ${JSON.stringify(kind)}`,
      { ...(typeof id === 'string' ? { nodeId: id } : {}), field: 'kind' },
    );
  }
  return NODE_CONFIGS[kind as NodeKind].fromJSON(json) as NodeConfig;
}

/** True when `value` is a node config of any kind. */
export function isNodeConfig(value: unknown): value is NodeConfig {
  return Object.values(NODE_CONFIGS).some((c) => c.is(value));
}
