import { closeSync, openSync, readSync } from 'node:fs';

/** What a running run's steps.jsonl holds so far: read on from `bytes` as the run appends. */
export interface LiveSteps {
  /** Bytes read (up to the end of the last complete line). */
  bytes: number;
  steps: number;
  tokens: number;
  /** Summed cost; null once a step's cost was unknown (recorded as null). */
  cost: number | null;
}

/** Most bytes read of a steps file in one go (a run's step lines are read across refreshes past it). */
const MAX_READ = 8 * 1024 * 1024;

/**
 * Reads the lines appended to `file` since `from` (size `size` now) and adds their steps, tokens and cost. Only
 * complete lines count: a line being written is read at the next refresh. A line that does not parse is counted
 * as a step without usage (the trace reader, when the run is opened, says what is wrong with it).
 */
export function readLiveSteps(file: string, size: number, from: LiveSteps): LiveSteps {
  const length = Math.min(size - from.bytes, MAX_READ);
  if (length <= 0) return from;
  const buf = Buffer.alloc(length);
  const fd = openSync(file, 'r');
  let read: number;
  try {
    read = readSync(fd, buf, 0, length, from.bytes);
  } finally {
    closeSync(fd);
  }
  const end = buf.subarray(0, read).lastIndexOf(0x0a) + 1;
  if (end === 0) return from;
  const next = { ...from, bytes: from.bytes + end };
  for (const line of buf.subarray(0, end).toString('utf8').split('\n')) {
    if (!line.trim()) continue;
    next.steps++;
    let step: unknown;
    try {
      step = JSON.parse(line);
    } catch {
      continue; // counted; the reader names the bad line when the run is opened
    }
    const { tokens, cost } = (typeof step === 'object' && step !== null ? step : {}) as Record<string, unknown>;
    next.tokens += tokenTotal(tokens);
    // a step without a model call records no cost; one whose price was unknown records null
    if (next.cost !== null && cost !== undefined)
      next.cost = typeof cost === 'number' && cost >= 0 ? next.cost + cost : null;
  }
  return next;
}

/** input + output + cache reads and writes, as `totalTokens` counts them, from an untrusted value (0 when not tokens). */
function tokenTotal(t: unknown): number {
  if (typeof t !== 'object' || t === null) return 0;
  const { input, output, cache } = t as Record<string, unknown>;
  const c = (typeof cache === 'object' && cache !== null ? cache : {}) as Record<string, unknown>;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
  return n(input) + n(output) + n(c.read) + n(c.write);
}
