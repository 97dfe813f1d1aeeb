import type { Policy, PolicyContext, State } from '../../core/index.js';

/** An event a policy emitted through the context of {@link policyContext}. */
export interface CapturedEvent {
  type: string;
  data: Record<string, unknown>;
}

/**
 * A PolicyContext for calling a policy's `reduce`, `checkStop` or `beforeModel` directly, outside a run: run
 * `run-1`, step 1, no usage yet, the task built from `state.task`. `events` collects what the policy emits.
 * `callModel` calls the call's own model, else `over.model`, without the run's middleware; with neither it rejects,
 * naming why. Override any field with `over`.
 */
export function policyContext(
  state: State,
  over: Partial<PolicyContext> = {},
): PolicyContext & { events: CapturedEvent[] } {
  const events: CapturedEvent[] = [];
  return {
    runId: 'run-1',
    task: { id: 't', objective: state.task, inputs: {}, resources: {}, budget: {}, successCriteria: [], metadata: {} },
    state,
    step: 1,
    usage: { tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }, cost: 0, modelCalls: 0 },
    elapsedMs: 0,
    signal: new AbortController().signal,
    // As the engine does, minus its middleware: the call's own model, else the run's.
    callModel: (request, opts = {}) => {
      const model = opts.model ?? over.model;
      return model
        ? model.generate(request, { signal: opts.signal })
        : Promise.reject(new Error('the policy test gave no model to call'));
    },
    emit: (type, data) => events.push({ type, data }),
    ...over,
    events,
  } as PolicyContext & { events: CapturedEvent[] };
}

/** The instance of `policy` that serves run `runId`, as the engine makes it (a policy with per-run state has `forRun`). */
export function policyForRun<S extends State>(policy: Policy<S>, runId = 'run-1'): Policy<S> {
  return policy.forRun?.({ runId }) ?? policy;
}
