import type { NodeRecord } from './thread-state.js';

/**
 * A node's record as the thread keeps it: frozen all the way down, its object fields (inputs, outputs, tokens) as
 * JSON copies (what the trace records and a resumed run reads back; a copy, so the values the node also wrote to
 * variables stay as they were). A record never changes once its node ended; frozen, the trace's state differ can
 * skip it at every later step (a traced node then costs the same however many nodes ran before), and code that
 * tried to change it would throw instead of making the thread disagree with its trace.
 */
export function frozenRecord(rec: NodeRecord): NodeRecord {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rec)) {
    if (value === undefined) continue;
    out[key] = value !== null && typeof value === 'object' ? deepFreeze(JSON.parse(JSON.stringify(value))) : value;
  }
  return Object.freeze(out) as NodeRecord;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const x of Object.values(value)) deepFreeze(x);
    Object.freeze(value);
  }
  return value;
}
