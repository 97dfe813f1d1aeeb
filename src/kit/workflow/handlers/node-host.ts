import type { Model } from '../../../core/index.js';
import type { ToolRegistry } from '../../../engine/tool-registry.js';
import type { ContextProcessor } from '../context-processor.js';
import { FORK_TOOL } from '../fork-tool.js';
import type { JoinReducer } from '../join-reducer.js';
import { SUBWORKFLOW_TOOL } from '../subworkflow-tool.js';
import type { WorkflowDefinition } from '../workflow-definition.js';

/**
 * What the node handlers use of their WorkflowAgent: fixed when the agent is built and the same for every run it
 * serves (what a run needs of its own is in its state and its context, never here).
 */
export interface NodeHost {
  readonly workflow: WorkflowDefinition;
  /** The agent's tools, the internal fork and subworkflow tools among them. */
  readonly tools: ToolRegistry;
  /** Context processors by name: the built-in ones and the agent's own. */
  readonly processors: Readonly<Record<string, ContextProcessor>>;
  readonly reducers: Readonly<Record<string, JoinReducer>> | undefined;
  readonly resolveModel: ((id: string) => Model) | undefined;
  readonly onInterrupt: ((request: { node: string; prompt: string; variable: string }) => unknown) | undefined;
}

/** True when `id` is a tool a node may name: registered, and not one of the workflow's internal tools. */
export function isUserTool(host: NodeHost, id: string): boolean {
  return host.tools.has(id) && id !== FORK_TOOL && id !== SUBWORKFLOW_TOOL;
}

/** The tools a node may name, for an error message (`(none)` when there are none). */
export function userToolList(host: NodeHost): string {
  return host.tools.names.filter((id) => id !== FORK_TOOL && id !== SUBWORKFLOW_TOOL).join(', ') || '(none)';
}
