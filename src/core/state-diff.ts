import type { StateDiff } from './trace.js';

/**
 * Applies a step's state diff to a (plain JSON) state, returning a new object (the input is not changed). Used to
 * rebuild states from traces. Order per object: `unset`, `set`, `splice`, then `patch` (recursively, on the object
 * at that key; a key that holds no object there starts from `{}`).
 */
export function applyStateDiff<T extends Record<string, unknown>>(state: T, diff: StateDiff): T {
  const out: Record<string, unknown> = { ...state };
  for (const k of diff.unset ?? []) delete out[k];
  for (const [k, v] of Object.entries(diff.set ?? {})) put(out, k, v);
  for (const [k, { at, items }] of Object.entries(diff.splice ?? {})) {
    const prev = Object.hasOwn(out, k) && Array.isArray(out[k]) ? (out[k] as unknown[]) : [];
    put(out, k, [...prev.slice(0, at), ...items]);
  }
  for (const [k, sub] of Object.entries(diff.patch ?? {})) {
    const prev = Object.hasOwn(out, k) ? out[k] : undefined;
    const base = prev !== null && typeof prev === 'object' && !Array.isArray(prev) ? prev : {};
    put(out, k, applyStateDiff(base as Record<string, unknown>, sub));
  }
  return out as T;
}

/** Sets an own property, also for the key `__proto__` (which plain assignment would take as the prototype). */
function put(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}
