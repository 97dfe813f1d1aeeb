import type { StateDiff } from './trace.js';

/** Applies a step's state diff to a (plain JSON) state, returning a new object. Used to rebuild states from traces. */
export function applyStateDiff<T extends Record<string, unknown>>(state: T, diff: StateDiff): T {
  const out: Record<string, unknown> = { ...state };
  for (const k of diff.unset ?? []) delete out[k];
  for (const [k, v] of Object.entries(diff.set ?? {})) out[k] = v;
  for (const [k, { at, items }] of Object.entries(diff.splice ?? {})) {
    const prev = Array.isArray(out[k]) ? (out[k] as unknown[]) : [];
    out[k] = [...prev.slice(0, at), ...items];
  }
  return out as T;
}
