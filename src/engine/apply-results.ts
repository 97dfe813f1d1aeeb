import type { ActionResult, AssistantMessage, Part } from '../core/index.js';
import { newId } from '../core/index.js';

/**
 * Writes a step's results into the history: each result's final ToolState goes into the tool part of its call
 * in the step's reply, and the parts a call added (a sub-run's subtask part) follow that tool part. This is the
 * only way results reach the history; the executor's state moves go to hooks and the trace as events.
 * Results of calls the reply does not hold (an agent's own decision) have no part to complete.
 */
export function applyResults(message: AssistantMessage, results: readonly ActionResult[]): void {
  if (!results.length) return;
  const byCall = new Map<string, ActionResult>();
  for (const r of results) byCall.set(r.actionId, r);
  const parts: Part[] = [];
  for (const part of message.parts) {
    parts.push(part);
    if (part.type !== 'tool') continue;
    const result = byCall.get(part.callID);
    if (!result) continue;
    part.state = result.state;
    for (const extra of result.parts ?? []) parts.push({ id: newId('prt'), ...extra } as Part);
  }
  if (parts.length !== message.parts.length) message.parts = parts;
}
