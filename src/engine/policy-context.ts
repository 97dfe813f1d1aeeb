import type { ActionResult, Decision, PolicyContext, State } from '../core/index.js';
import type { ActiveRun } from './run-context.js';

/** What a policy sees of a run at this point (with the step's decision and results in REDUCE and CHECK_STOP). */
export function policyContext<S extends State>(
  { run, services }: ActiveRun<S>,
  extra?: { decision?: Decision; results?: ActionResult[] },
): PolicyContext<S> {
  return {
    runId: run.runId,
    task: run.task,
    state: run.state,
    step: run.step,
    ...extra,
    usage: run.usage,
    lastStepTokens: run.lastStepTokens,
    elapsedMs: Date.now() - run.startedAt,
    model: services.model,
    modelInfo: services.model?.info,
    signal: services.signal,
    callModel: services.callModel,
    emit: (event, data) => {
      run.policyEvents[event] = (run.policyEvents[event] ?? 0) + 1;
      services.events.emit({
        type: 'policy',
        step: run.step,
        policy: String(data.policy ?? event.split(':')[0]),
        event,
        data,
      });
    },
  };
}
