import type { Memory, MemoryRecord } from '../../core/index.js';
import { recordText } from './record-text.js';

/** Options of {@link windowMemory}. */
export interface WindowMemoryOptions {
  /** How many records are kept (default 50); the oldest go first. */
  size?: number;
}

/**
 * The last `size` records, nothing else: `retrieve` returns the most recent `k` (the query is not used), and
 * `summarize` lists what the window holds. The baseline every other memory is compared with.
 */
export function windowMemory(options: WindowMemoryOptions = {}): Memory {
  const size = options.size ?? 50;
  if (!Number.isInteger(size) || size < 1)
    throw new Error(`windowMemory: size must be a positive integer, got ${size}`);
  let records: MemoryRecord[] = [];
  return {
    name: 'window',
    append(record) {
      records.push(record);
      // Amortised: trim in batches so a long run does not shift the array on every append.
      if (records.length >= size * 2) records = records.slice(-size);
    },
    retrieve(_query, k) {
      if (k < 1) return [];
      return records.slice(-Math.min(size, Math.max(0, k))).reverse();
    },
    summarize() {
      return records.slice(-size).map(recordText).join('\n');
    },
    evict() {
      const over = Math.max(0, records.length - size);
      records = records.slice(over);
      return over;
    },
    reset() {
      records = [];
    },
  };
}
