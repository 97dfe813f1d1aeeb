import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forEachConcurrent } from '../../src/engine/for-each-concurrent.js';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('forEachConcurrent', () => {
  it('runs every item once, never more than `concurrency` at a time, starting in item order (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 20 }),
        fc.integer({ min: 1, max: 6 }),
        async (delays, concurrency) => {
          let running = 0;
          let peak = 0;
          const started: number[] = [];
          const done = new Set<number>();
          await forEachConcurrent(delays, concurrency, async (ms, i) => {
            started.push(i);
            peak = Math.max(peak, ++running);
            await tick(ms);
            running--;
            done.add(i);
          });
          expect(started).toEqual(delays.map((_, i) => i));
          expect(done.size).toBe(delays.length);
          expect(peak).toBeLessThanOrEqual(Math.max(1, Math.min(concurrency, delays.length)));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('after an error starts nothing new, lets what runs finish, then rejects with the first error', async () => {
    const finished: number[] = [];
    const p = forEachConcurrent([0, 1, 2, 3, 4, 5], 2, async (i) => {
      await tick(i === 1 ? 1 : 5);
      if (i === 1) throw new Error('item 1 failed');
      finished.push(i);
    });
    await expect(p).rejects.toThrow('item 1 failed');
    // 0 was running when 1 failed: it finishes; nothing after 1 starts.
    expect(finished).toEqual([0]);
  });

  it('stops taking items once stop() says so', async () => {
    const seen: number[] = [];
    let stopped = false;
    await forEachConcurrent(
      [1, 2, 3, 4, 5],
      1,
      async (i) => {
        seen.push(i);
        if (i === 2) stopped = true;
      },
      () => stopped,
    );
    expect(seen).toEqual([1, 2]);
  });
});
