/**
 * `qitos-ts/workflow`: workflows of nodes (LLM, tool, condition, context processor, fork/join, loop, subworkflow,
 * interrupt) run on the qitos kernel. Node configs are immutable value objects with no logic; a
 * `WorkflowAgent` runs them, one engine step per node step, so a workflow run is an ordinary trace.
 */
import '../../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export { WorkflowError } from './workflow-error.js';
export {
  defineNodeConfig,
  type NodeConfigClass,
  type NodeConfigValue,
  type NodeJSON,
} from './nodes/define-node-config.js';
export { NodeId, VariableName, ErrorPolicy } from './nodes/node-fields.js';
export { DEFAULT_TOKEN_LIMIT, LLMNodeConfig, LLMNodeFields, llmNodeModelId } from './nodes/llm-node-config.js';
export { ToolNodeConfig, ToolNodeFields } from './nodes/tool-node-config.js';
export {
  ContextProcessorConfig,
  ContextProcessorFields,
  BUILTIN_PROCESSORS,
} from './nodes/context-processor-config.js';
export { StartNodeConfig, StartNodeFields } from './nodes/start-node-config.js';
export { EndNodeConfig, EndNodeFields } from './nodes/end-node-config.js';
export { ForkNodeConfig, ForkNodeFields } from './nodes/fork-node-config.js';
export { JoinNodeConfig, JoinNodeFields } from './nodes/join-node-config.js';
export { LoopStartNodeConfig, LoopStartNodeFields } from './nodes/loop-start-node-config.js';
export { LoopEndNodeConfig, LoopEndNodeFields } from './nodes/loop-end-node-config.js';
export { ConditionNodeConfig, ConditionNodeFields } from './nodes/condition-node-config.js';
export { SubworkflowNodeConfig, SubworkflowNodeFields } from './nodes/subworkflow-node-config.js';
export { InterruptNodeConfig, InterruptNodeFields } from './nodes/interrupt-node-config.js';
export { waitingAskAnswer } from './waiting-ask-answer.js';
export { NODE_CONFIGS, nodeConfigFromJSON, isNodeConfig, type NodeConfig, type NodeKind } from './nodes/node-config.js';
export { WorkflowEdge, WorkflowFile } from './workflow-file.js';
export {
  WorkflowDefinition,
  type WorkflowInput,
  type WorkflowSource,
  type SourcePosition,
} from './workflow-definition.js';
export {
  checkWorkflow,
  type WorkflowProblem,
  type WorkflowGraph,
  type CheckWorkflowOptions,
} from './check-workflow.js';
export { parseWorkflowYaml, loadWorkflowFile } from './parse-workflow-yaml.js';
export { ThreadState, NodeRecord, ActiveLLM, BranchOutcome, type WorkflowState } from './thread-state.js';
export { renderTemplate, renderParameters } from './render-template.js';
export {
  BUILTIN_CONTEXT_PROCESSORS,
  summariseProcessor,
  trimProcessor,
  truncateToolOutputsProcessor,
  estimateTokens,
  SEED_CHARS_PER_TOKEN,
  ROUND_SUMMARY_HEADER,
  ROUND_SUMMARY_SYSTEM,
  type ContextProcessor,
  type ContextProcessorContext,
} from './context-processor.js';
export type { JoinReducer } from './join-reducer.js';
export { WorkflowAgent, DEFAULT_MAX_SUBWORKFLOW_DEPTH, type WorkflowAgentOptions } from './workflow-agent.js';
/** @experimental Resuming and forking internals: `resumeWorkflow` and `forkWorkflow` are the stable way. */
export type { ThreadHost } from './child-thread.js';
export { runWorkflow, workflowResult, type RunWorkflowOptions, type WorkflowRunResult } from './run-workflow.js';
export { resumeWorkflow, type ResumeWorkflowOptions } from './resume-workflow.js';
export { forkWorkflow, type ForkWorkflowOptions } from './fork-workflow.js';
/** @experimental Resuming and forking internals: `resumeWorkflow` and `forkWorkflow` are the stable way. */
export { readWorkflowTrace, reopenThread } from './read-workflow-trace.js';
export {
  isWorkflowManifest,
  recordedWorkflowJson,
  recordedWorkflowRef,
  workflowSha256,
  type WorkflowRef,
} from './recorded-workflow.js';
/** @experimental Resuming and forking internals: `resumeWorkflow` and `forkWorkflow` are the stable way. */
export { previousThread, resumeSourceOf, type ResumeSource, type PreviousThread } from './previous-thread.js';
