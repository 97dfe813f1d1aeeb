import type { NodeRecord } from './thread-state.js';

/**
 * A node's record as the thread keeps it: a JSON copy (what the trace records and a resumed run reads back), frozen
 * all the way down. A record never changes once its node ended; frozen, the trace's state differ can skip it at
 * every later step (a traced node then costs the same however many nodes ran before), and code that tried to change
 * it would throw instead of making the thread disagree with its trace.
 */
export function frozenRecord(rec: NodeRecord): NodeRecord {
  return deepFreeze(JSON.parse(JSON.stringify(rec)) as NodeRecord);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const x of Object.values(value)) deepFreeze(x);
    Object.freeze(value);
  }
  return value;
}
