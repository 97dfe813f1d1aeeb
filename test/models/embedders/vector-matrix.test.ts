import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VectorMatrix } from '../../../src/models/embedders/index.js';

const cosine = (a: number[], b: number[]) => {
  const dot = a.reduce((s, x, i) => s + x * b[i], 0);
  const n = Math.hypot(...a) * Math.hypot(...b);
  return n === 0 ? 0 : dot / n;
};

describe('VectorMatrix', () => {
  it('returns the k best rows by cosine, as a full sort would, for dense and sparse queries (property)', () => {
    const seed = Date.now() % 2 ** 31;
    console.log(`VectorMatrix property seed: ${seed}`);
    const dims = 16;
    const value = fc.oneof(fc.constant(0), fc.double({ min: -1, max: 1, noNaN: true }).map(Math.fround));
    fc.assert(
      fc.property(
        fc.array(fc.array(value, { minLength: dims, maxLength: dims }), { minLength: 0, maxLength: 40 }),
        fc.array(value, { minLength: dims, maxLength: dims }),
        fc.integer({ min: 1, max: 10 }),
        (rows, query, k) => {
          const got = new VectorMatrix(rows, dims).top(query, k);
          if (query.every((x) => x === 0)) return void expect(got).toEqual([]);
          const want = rows.map((r, row) => ({ row, score: cosine(r, query) })).sort((a, b) => b.score - a.score);
          expect(got.length).toBe(Math.min(k, rows.length));
          got.forEach((g, i) => expect(g.score).toBeCloseTo(want[i].score, 5));
          for (const g of got) expect(g.score).toBeCloseTo(cosine(rows[g.row], query), 5);
        },
      ),
      // seed 190417600 found a row of float32 denormals whose float32 norm was 40% off (norms are doubles now)
      {
        seed,
        numRuns: 300,
        examples: [
          [
            [[-1.401298464324817e-45, -1.401298464324817e-45, ...Array<number>(14).fill(0)]],
            [0, 0.000017071068214136176, ...Array<number>(14).fill(0)],
            1,
          ],
        ],
      },
    );
  });

  it('refuses vectors of another length', () => {
    expect(() => new VectorMatrix([[1, 2], [1]], 2)).toThrow(
      'vector 1 has length 1; this index holds vectors of length 2',
    );
    expect(() => new VectorMatrix([[1, 2]], 2).top([1], 1)).toThrow(
      'the query vector has length 1; this index holds vectors of length 2',
    );
  });
});
