import type { TaskInput } from '../../core/index.js';
import { stateAtStep } from '../../trace/index.js';
import { readWorkflowTrace, recordedStopAt, reopenThread } from './read-workflow-trace.js';
import type { ResumeWorkflowOptions } from './resume-workflow.js';
import { runWorkflow, type WorkflowRunResult } from './run-workflow.js';
import type { WorkflowState } from './thread-state.js';
import type { WorkflowDefinition } from './workflow-definition.js';
import { WorkflowError } from './workflow-error.js';

/** Options of {@link forkWorkflow}: those of a resume, plus which visit of the node to fork at. */
export interface ForkWorkflowOptions extends ResumeWorkflowOptions {
  /** The visit of the node to fork at, 1 for the first (default 1): a node in a loop is visited once a round. */
  visit?: number;
}

/**
 * Re-runs a recorded workflow run from a node (LangGraph's time travel, kept reproducible): the thread state just
 * before the `visit`-th time `atNode` ran is rebuilt from the trace, `vars` are set over its variables, and a new
 * run, linked to the old one (`parent: { kind: 'fork', atStep }`), goes on from there, with another model or
 * tools when the options say so. Everything after the node runs again (branches of a fork too).
 */
export async function forkWorkflow(
  traceDir: string,
  workflow: WorkflowDefinition,
  atNode: string,
  options: ForkWorkflowOptions,
): Promise<WorkflowRunResult> {
  const trace = await readWorkflowTrace(traceDir, workflow, options.allowChangedWorkflow === true);
  if (!workflow.nodes.has(atNode))
    throw new WorkflowError(`workflow "${workflow.name}" has no node "${atNode}"`, { nodeId: atNode });
  const stopAt = recordedStopAt(trace, workflow);
  const visit = options.visit ?? 1;
  const first = (trace.manifest.initialState as { step?: number } | null)?.step ?? 0;
  const steps = [first, ...trace.steps.map((s) => s.step)];
  let seen = 0;
  for (const step of steps) {
    const state = stateAtStep(trace, step) as WorkflowState;
    // about to run the node, and not in the middle of an LLM node's tool loop
    if (state.thread?.current !== atNode || state.thread.active !== null || state.thread.status !== 'running') continue;
    if (++seen < visit) continue;
    reopenThread(state, options.vars);
    const { allowChangedWorkflow: _a, visit: _v, vars: _vars, ...rest } = options;
    return runWorkflow(workflow, {
      ...rest,
      task: trace.manifest.task as unknown as TaskInput,
      ...(stopAt ? { stopAt } : {}),
      resumeFrom: { state, step },
      parent: { runId: trace.manifest.runId, path: trace.dir, kind: 'fork', atStep: step },
    });
  }
  throw new WorkflowError(
    `trace ${trace.dir} never ran node "${atNode}"${visit > 1 ? ` ${visit} times (it ran it ${seen})` : ''}`,
    { nodeId: atNode },
  );
}
