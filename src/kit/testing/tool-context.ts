import type { ActContext, ToolContext } from '../../core/index.js';
import { nullEnv } from '../../core/index.js';

/** An ACT context for calling an executor or a tool outside a run: a top-level run with no model, no trace. */
export function actContext(overrides: Partial<ActContext> = {}): ActContext {
  return {
    runId: 'r',
    traceDir: null,
    step: 1,
    env: nullEnv,
    state: {},
    signal: new AbortController().signal,
    services: {},
    depth: 0,
    callModel: () => Promise.reject(new Error('this test gives the run no model')),
    childLink: () => ({
      runId: overrides.runId ?? 'r',
      path: null,
      kind: 'subtask',
      depth: (overrides.depth ?? 0) + 1,
    }),
    onState: () => undefined,
    ...overrides,
  };
}

/** A tool context for calling one tool's `execute` outside a run (the ACT context of {@link actContext}, one call). */
export function toolContext(overrides: Partial<ToolContext> = {}): ToolContext {
  const { onState: _onState, ...act } = actContext();
  return { ...act, callId: 'call_1', metadata: () => undefined, ...overrides };
}
