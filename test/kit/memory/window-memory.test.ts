import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { windowMemory } from '../../../src/kit/memory/index.js';
import { memoryContext, records } from './memory-fixtures.js';

describe('windowMemory', () => {
  it('keeps the last `size` records and retrieves the most recent first, whatever the query', async () => {
    const m = windowMemory({ size: 3 });
    const ctx = memoryContext();
    for (const r of records(5)) await m.append(r, ctx);
    expect((await m.retrieve('anything', 2, ctx)).map((r) => r.step)).toEqual([5, 4]);
    expect((await m.retrieve('anything', 10, ctx)).map((r) => r.step)).toEqual([5, 4, 3]);
    expect(await m.summarize(ctx)).toBe('[step 3] agent: note 3\n[step 4] agent: note 4\n[step 5] agent: note 5');
    expect(await m.evict(ctx)).toBe(2);
    await m.reset(ctx);
    expect(await m.retrieve('x', 5, ctx)).toEqual([]);
  });

  it('refuses a size that is not a positive integer, naming it', () => {
    expect(() => windowMemory({ size: 0 })).toThrow(/size must be a positive integer, got 0/);
  });

  it('property: after any appends, retrieve(k) is the last min(k, size, n) records, newest first', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 30 }),
        async (size, n, k) => {
          const m = windowMemory({ size });
          const ctx = memoryContext();
          for (const r of records(n)) await m.append(r, ctx);
          const got = (await m.retrieve('', k, ctx)).map((r) => r.step);
          const expected = Array.from({ length: Math.min(k, size, n) }, (_, i) => n - i);
          expect(got).toEqual(expected);
        },
      ),
    );
  });
});
