import type { TaskInput } from '../../core/index.js';
import { stateAtStep } from '../../trace/index.js';
import { readWorkflowTrace, recordedStopAt, reopenThread } from './read-workflow-trace.js';
import { runWorkflow, type RunWorkflowOptions, type WorkflowRunResult } from './run-workflow.js';
import type { WorkflowState } from './thread-state.js';
import type { WorkflowDefinition } from './workflow-definition.js';
import { WorkflowError } from './workflow-error.js';

/** Options of {@link resumeWorkflow}: those of a run, plus whether the workflow may differ from the recorded one. */
export interface ResumeWorkflowOptions extends RunWorkflowOptions {
  /**
   * Go on even when `workflow` is not the one the trace recorded (an edited flow). Off by default: a resumed
   * run should do what the first one would have done.
   */
  allowChangedWorkflow?: boolean;
}

/**
 * Resumes a workflow run from its trace, after the last step the trace recorded (a crash loses at most the step
 * in flight, which had not completed its node): the thread state is rebuilt from the trace and a new run, linked
 * to the old one (`parent: { kind: 'fork', atStep }`), goes on from the current node, so no completed node runs
 * again (inside a fork too: finished branches are reused, a killed branch is resumed). A failed node is tried
 * again; a waiting interrupt goes on once `vars` gives its variable. The workflow is the caller's (never taken
 * from the trace, which is untrusted data): it must match the recorded one unless `allowChangedWorkflow`.
 */
export async function resumeWorkflow(
  traceDir: string,
  workflow: WorkflowDefinition,
  options: ResumeWorkflowOptions,
): Promise<WorkflowRunResult> {
  const trace = await readWorkflowTrace(traceDir, workflow, options.allowChangedWorkflow === true);
  const m = trace.manifest;
  const stopAt = recordedStopAt(trace, workflow);
  const last = trace.steps.length ? trace.steps[trace.steps.length - 1].step : 0;
  const state = stateAtStep(trace, last) as WorkflowState;
  if (!state.thread) throw new WorkflowError(`trace ${trace.dir} has no workflow thread in its state`);
  if (state.thread.status === 'completed')
    throw new WorkflowError(`the workflow of trace ${trace.dir} completed; there is nothing to resume`);
  reopenThread(state, options.vars);
  const { allowChangedWorkflow: _a, vars: _v, ...rest } = options;
  const current = state.thread.current;
  return runWorkflow(workflow, {
    ...rest,
    task: m.task as unknown as TaskInput,
    ...(stopAt ? { stopAt } : {}),
    ...(current !== null ? { resumeOf: { runId: m.runId, traceDir: trace.dir, node: current, afterStep: last } } : {}),
    resumeFrom: { state, step: last },
    parent: { runId: m.runId, path: trace.dir, kind: 'fork', atStep: last },
  });
}
