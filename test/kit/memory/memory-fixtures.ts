import type { CallModel, MemoryContext, MemoryRecord } from '../../../src/index.js';

/** A memory context outside a run: step 1, a live signal, and a model call the test provides (or one that fails). */
export function memoryContext(callModel?: CallModel): MemoryContext {
  return {
    runId: 'run_test',
    step: 1,
    signal: new AbortController().signal,
    callModel: callModel ?? (() => Promise.reject(new Error('this memory must not call a model'))),
  };
}

/** Records numbered from 1: `{ step: i, role: 'agent', content: text(i) }`. */
export function records(n: number, text: (i: number) => string = (i) => `note ${i}`): MemoryRecord[] {
  return Array.from({ length: n }, (_, j) => ({ step: j + 1, role: 'agent', content: text(j + 1) }));
}
