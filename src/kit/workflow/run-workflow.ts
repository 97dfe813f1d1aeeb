import type {
  AnyTool,
  Approver,
  Budget,
  Env,
  Hook,
  Model,
  ModelMiddleware,
  ParentLink,
  PermissionConfig,
  Policy,
  TaskInput,
} from '../../core/index.js';
import { Engine, type RunResult } from '../../engine/engine.js';
import type { TraceOptions } from '../../trace/index.js';
import type { ThreadState, WorkflowState } from './thread-state.js';
import { WorkflowAgent, type WorkflowAgentOptions } from './workflow-agent.js';
import type { WorkflowDefinition } from './workflow-definition.js';

/** Options of {@link runWorkflow}: the agent's (model, tools, reducers, processors) and the run's. */
export interface RunWorkflowOptions extends Omit<WorkflowAgentOptions, 'workflow' | 'tools' | 'entry' | 'stopAt'> {
  /** The model of the LLM nodes (a workflow without LLM nodes needs none). */
  model?: Model;
  tools?: Iterable<AnyTool>;
  /** Variables over the workflow's defaults. */
  vars?: Record<string, unknown>;
  /** Trace options (default: `traces/` of the working directory), or false for none. */
  trace?: TraceOptions | false;
  env?: Env;
  budget?: Budget;
  hooks?: Hook[];
  policies?: Policy<WorkflowState>[];
  middleware?: ModelMiddleware[];
  signal?: AbortSignal;
  runId?: string;
  /** End the run on SIGINT/SIGTERM (the CLI sets it). */
  handleSigint?: boolean;
  /**
   * Permission rules of the tool calls (docs/permissions.md). An ask that `onApproval` does not answer (or with no
   * `onApproval`) makes the thread wait on its node, as an interrupt does; `resumeWorkflow` with `onApproval` answers it.
   */
  permission?: PermissionConfig;
  onApproval?: Approver;
  approvalTimeoutMs?: number;
  /** Start from this state after step `step` instead of the start node (`resumeWorkflow` sets it). */
  resumeFrom?: { state: WorkflowState; step: number };
  /** The run this one descends from (`resumeWorkflow`: the run it resumes). */
  parent?: ParentLink;
  /** The task of the run (default: one named after the workflow, with `vars` as its inputs). */
  task?: TaskInput;
}

/** What a workflow run ended with. */
export interface WorkflowRunResult {
  /**
   * `completed` (an end node was reached), `failed`, `waiting` (an interrupt needs a value), or `stopped` (a budget, an
   * abort, an error of the run).
   */
  status: ThreadState['status'] | 'stopped';
  /** The final variables. */
  vars: Record<string, unknown>;
  /** The end node's result. */
  output: string | null;
  /** Why it failed, waits or stopped. */
  reason: string | undefined;
  traceDir: string | null;
  /** The engine's result (state with the whole thread, usage, stop reason). */
  run: RunResult<WorkflowState>;
}

/** Runs a workflow to its end on the qitos engine (one trace folder) and says how it ended. */
export async function runWorkflow(
  workflow: WorkflowDefinition,
  options: RunWorkflowOptions,
): Promise<WorkflowRunResult> {
  const {
    vars,
    trace,
    env,
    budget,
    hooks,
    policies,
    middleware,
    signal,
    runId,
    handleSigint,
    resumeFrom,
    parent,
    task,
    permission,
    onApproval,
    approvalTimeoutMs,
    ...agentOptions
  } = options;
  const agent = new WorkflowAgent({ ...agentOptions, workflow });
  const engine = new Engine<WorkflowState>({
    agent,
    ...(env ? { env } : {}),
    ...(budget ? { budget } : {}),
    ...(hooks ? { hooks } : {}),
    ...(policies ? { policies } : {}),
    ...(middleware ? { middleware } : {}),
    ...(runId ? { runId } : {}),
    ...(handleSigint ? { handleSigint } : {}),
    ...(parent ? { parent } : {}),
    ...(permission !== undefined ? { permission } : {}),
    ...(onApproval ? { onApproval } : {}),
    ...(approvalTimeoutMs !== undefined ? { approvalTimeoutMs } : {}),
    trace: trace ?? {},
  });
  const run = await engine.run(
    task ?? {
      id: `workflow-${workflow.name}`,
      objective: workflow.description ?? `workflow ${workflow.name}`,
      inputs: vars ?? {},
    },
    { ...(signal ? { signal } : {}), ...(resumeFrom ? { resumeFrom } : {}) },
  );
  return workflowResult(run);
}

/** The workflow's view of an engine result. */
export function workflowResult(run: RunResult<WorkflowState>): WorkflowRunResult {
  const thread = run.state?.thread as ThreadState | undefined;
  const status = thread && thread.status !== 'running' ? thread.status : 'stopped';
  return {
    status,
    vars: thread?.vars ?? {},
    output: status === 'completed' ? run.finalResult : null,
    reason: status === 'completed' ? undefined : (thread?.reason ?? `${run.stopReason}: ${run.stopMessage}`),
    traceDir: run.traceDir,
    run,
  };
}
