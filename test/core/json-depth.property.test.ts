import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/core/index.js';

/** A value nested exactly `n` levels deep (`kinds` picks array or object per level), with scalar siblings. */
function nested(n: number, kinds: boolean[]): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < n; i++) v = kinds[i % kinds.length] ? [1, v, 'x'] : { a: 1, b: v, c: null };
  return v;
}

describe('nestsDeeperThan', () => {
  it('is true exactly when the value nests more levels than the limit', () => {
    fc.assert(
      fc.property(
        fc.nat(1200),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 1000 }),
        (n, kinds, limit) => {
          expect(nestsDeeperThan(nested(n, kinds), limit)).toBe(n > limit);
        },
      ),
    );
  });

  it('answers for a million levels without using the stack (JSON.parse builds such values)', () => {
    const v = JSON.parse('['.repeat(1_000_000) + ']'.repeat(1_000_000));
    expect(nestsDeeperThan(v)).toBe(true);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH, [true, false]))).toBe(false);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1, [true, false]))).toBe(true);
  });
});
