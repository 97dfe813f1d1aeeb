import type { State } from '../core/index.js';
import { applyStateDiff } from '../core/index.js';
import { TraceError, type Trace } from './trace-reader.js';

/**
 * The state after step `at`, rebuilt from the manifest's initial state and the steps' state diffs.
 * `at` may be the trace's first state (0 for a fresh run, k for a fork from step k) up to its last step.
 */
export function stateAtStep(trace: Trace, at: number): State {
  const initial = trace.manifest.initialState as State | null;
  if (!initial || typeof initial !== 'object')
    throw new TraceError(
      `trace ${trace.dir} has no initial state (the run ended before its first step), so it cannot be forked`,
    );
  const first = typeof initial.step === 'number' ? initial.step : 0;
  const last = trace.steps.length ? trace.steps[trace.steps.length - 1].step : first;
  if (at < first)
    throw new TraceError(`step ${at} is before this trace's first state (step ${first}); fork its parent instead`);
  if (at > last) throw new TraceError(`trace ${trace.dir} has steps ${first + 1}..${last}; cannot fork at step ${at}`);
  let state = structuredClone(initial) as unknown as Record<string, unknown>;
  let expected = first + 1;
  for (const s of trace.steps) {
    if (s.step > at) break;
    if (s.step !== expected)
      throw new TraceError(
        `trace ${trace.dir} is missing step ${expected}, so the state after step ${at} cannot be rebuilt`,
      );
    state = applyStateDiff(state, s.stateDiff);
    expected++;
  }
  return state as unknown as State;
}
