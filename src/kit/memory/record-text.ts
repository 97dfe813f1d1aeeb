import type { MemoryRecord } from '../../core/index.js';

/** One record as a line of text for a prompt or a summary: `[step N] role: content`. */
export function recordText(r: MemoryRecord): string {
  return `[step ${r.step}] ${r.role}: ${r.content}`;
}
