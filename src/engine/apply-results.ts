import type { ActionResult, AssistantMessage, Part } from '../core/index.js';
import { newId } from '../core/index.js';

/**
 * Writes a step's results into the history: each result's final ToolState goes into the tool part of its call
 * in the step's reply, and the parts a call added (a sub-run's subtask part) follow that tool part. This is the
 * only way results reach the history; the executor's state moves go to hooks and the trace as events.
 * Results of calls the reply does not hold (an agent's own decision) have no part to complete.
 */
export function applyResults(message: AssistantMessage, results: readonly ActionResult[]): void {
  let extras = false;
  for (const part of message.parts) {
    if (part.type !== 'tool') continue;
    // a step has a handful of calls: a scan is cheaper than a map
    const result = results.find((r) => r.actionId === part.callID);
    if (!result) continue;
    part.state = result.state;
    if (result.parts?.length) extras = true;
  }
  if (!extras) return;
  const parts: Part[] = [];
  for (const part of message.parts) {
    parts.push(part);
    if (part.type !== 'tool') continue;
    for (const extra of results.find((r) => r.actionId === part.callID)?.parts ?? [])
      parts.push({ id: newId('prt'), ...extra } as Part);
  }
  message.parts = parts;
}
