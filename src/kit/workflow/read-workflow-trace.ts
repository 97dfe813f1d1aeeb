import { canonicalJson } from '../../core/index.js';
import { readTrace, type Trace } from '../../trace/index.js';
import type { WorkflowState } from './thread-state.js';
import type { WorkflowDefinition } from './workflow-definition.js';
import { isWorkflowManifest, recordedWorkflowRef } from './recorded-workflow.js';
import { WorkflowError } from './workflow-error.js';

/**
 * Reads the trace of a workflow run to go on from (resume, fork). The workflow is the caller's, never the
 * trace's (untrusted data): it must equal the one the run recorded unless `allowChanged`.
 */
export async function readWorkflowTrace(
  traceDir: string,
  workflow: WorkflowDefinition,
  allowChanged: boolean,
): Promise<Trace> {
  const trace = await readTrace(traceDir);
  const m = trace.manifest;
  if (!isWorkflowManifest(m))
    throw new WorkflowError(`trace ${trace.dir} is not a workflow run (agent ${m.agent.name})`);
  if (allowChanged) return trace;
  // A branch names its workflow by hash: compared with the caller's own, it needs no look-up in its parent.
  const ref = recordedWorkflowRef(m);
  const same = ref
    ? ref.sha256 === workflow.sha256
    : canonicalJson(m.agent.config?.workflow) === canonicalJson(workflow.toJSON());
  if (!same)
    throw new WorkflowError(
      `trace ${trace.dir} ran another version of workflow "${workflow.name}" (resuming with a changed workflow must be allowed explicitly)`,
    );
  return trace;
}

/**
 * Where the recorded thread stops (`agent.config.stopAt`: a fork's branch stops at its join), so that resuming or
 * forking a branch's own trace stops there too; undefined for a whole run. A node the workflow does not have is an
 * error (the trace is untrusted data).
 */
export function recordedStopAt(trace: Trace, workflow: WorkflowDefinition): string | undefined {
  const stopAt = trace.manifest.agent.config?.stopAt;
  if (stopAt === undefined) return undefined;
  if (typeof stopAt !== 'string' || !workflow.nodes.has(stopAt))
    throw new WorkflowError(
      `trace ${trace.dir} stops its thread at ${JSON.stringify(stopAt)}, which is not a node of workflow "${workflow.name}"`,
    );
  return stopAt;
}

/** Makes a recorded thread state runnable again: running, no stop reason, with `vars` set over its variables. */
export function reopenThread(state: WorkflowState, vars: Record<string, unknown> | undefined): WorkflowState {
  const thread = state.thread;
  thread.status = 'running';
  delete thread.reason;
  thread.attempts = 0;
  Object.assign(thread.vars, structuredClone(vars ?? {}));
  state.stopReason = null;
  state.finalResult = null;
  return state;
}
