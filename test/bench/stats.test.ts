import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  clusterBootstrap,
  holm,
  mcnemarExact,
  mean,
  pairedBootstrap,
  passAtK,
  passHatK,
  quantile,
  seededRandom,
  wilson,
} from '../../src/bench/stats.js';

// Reference values computed independently (Python's math.comb / textbook Wilson formula).
describe('wilson', () => {
  it('matches known intervals', () => {
    const w = wilson(8, 10);
    expect(w.rate).toBe(0.8);
    expect(w.ci[0]).toBeCloseTo(0.49016247, 7);
    expect(w.ci[1]).toBeCloseTo(0.94331785, 7);
    expect(wilson(50, 100).ci[0]).toBeCloseTo(0.40383153, 7);
    expect(wilson(50, 100).ci[1]).toBeCloseTo(0.59616847, 7);
  });
  it('does not collapse at 0% or 100%', () => {
    expect(wilson(0, 10).ci).toEqual([0, expect.closeTo(0.2775328, 7)]);
    expect(wilson(10, 10).ci).toEqual([expect.closeTo(0.7224672, 7), 1]);
  });
  it('says nothing is known for no trials, and rejects impossible counts', () => {
    expect(wilson(0, 0)).toMatchObject({ rate: 0, ci: [0, 1] });
    expect(() => wilson(3, 2)).toThrow(/0 <= successes <= total/);
    expect(() => wilson(-1, 2)).toThrow(RangeError);
  });
  it('contains the point estimate and stays in [0, 1] (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5000 }).chain((n) => fc.tuple(fc.integer({ min: 0, max: n }), fc.constant(n))),
        ([s, n]) => {
          const { rate, ci } = wilson(s, n);
          expect(ci[0]).toBeGreaterThanOrEqual(0);
          expect(ci[1]).toBeLessThanOrEqual(1);
          expect(ci[0]).toBeLessThanOrEqual(rate + 1e-12);
          expect(ci[1]).toBeGreaterThanOrEqual(rate - 1e-12);
        },
      ),
    );
  });
  it('narrows as the sample grows at the same rate', () => {
    const width = (s: number, n: number) => wilson(s, n).ci[1] - wilson(s, n).ci[0];
    expect(width(80, 100)).toBeLessThan(width(8, 10));
    expect(width(800, 1000)).toBeLessThan(width(80, 100));
  });
});

describe('pass@k and pass^k', () => {
  it('match the combinatorial definitions', () => {
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3, 12);
    expect(passAtK(10, 3, 5)).toBeCloseTo(0.91666667, 7);
    expect(passAtK(5, 0, 2)).toBe(0);
    expect(passAtK(5, 4, 2)).toBe(1);
    expect(passHatK(10, 3, 2)).toBeCloseTo(1 / 15, 12);
    expect(passHatK(5, 5, 3)).toBe(1);
    expect(passHatK(5, 2, 3)).toBe(0);
  });
  it('pass@1 = pass^1 = c/n, pass@k grows and pass^k shrinks with k (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }))),
        ([n, c]) => {
          expect(passAtK(n, c, 1)).toBeCloseTo(c / n, 10);
          expect(passHatK(n, c, 1)).toBeCloseTo(c / n, 10);
          for (let k = 2; k <= n; k++) {
            expect(passAtK(n, c, k)).toBeGreaterThanOrEqual(passAtK(n, c, k - 1) - 1e-12);
            expect(passHatK(n, c, k)).toBeLessThanOrEqual(passHatK(n, c, k - 1) + 1e-12);
            expect(passHatK(n, c, k)).toBeLessThanOrEqual(passAtK(n, c, k) + 1e-12);
          }
        },
      ),
    );
  });
  it('rejects k outside 1..n', () => {
    expect(() => passAtK(3, 1, 4)).toThrow(/1 <= k <= n/);
    expect(() => passHatK(3, 4, 1)).toThrow(RangeError);
  });
});

describe('mcnemarExact', () => {
  it('matches the exact two-sided binomial p-values', () => {
    expect(mcnemarExact(1, 9).pValue).toBeCloseTo(0.021484375, 12);
    expect(mcnemarExact(0, 5).pValue).toBeCloseTo(0.0625, 12);
    expect(mcnemarExact(10, 25).pValue).toBeCloseTo(0.0166738478, 9);
    expect(mcnemarExact(100, 150).pValue).toBeCloseTo(0.0018833009, 9);
    expect(mcnemarExact(3, 3).pValue).toBe(1);
    expect(mcnemarExact(0, 0).pValue).toBe(1);
  });
  it('stays finite for thousands of discordant pairs', () => {
    const p = mcnemarExact(2000, 2300).pValue;
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(1e-4);
  });
  it('p is in [0, 1] and symmetric in the two counts (property)', () => {
    fc.assert(
      fc.property(fc.nat(400), fc.nat(400), (b, c) => {
        const p = mcnemarExact(b, c).pValue;
        expect(p).toBeGreaterThanOrEqual(0);
        expect(p).toBeLessThanOrEqual(1);
        expect(mcnemarExact(c, b).pValue).toBe(p);
      }),
    );
  });
});

describe('pairedBootstrap', () => {
  it('is reproducible for a seed and contains the point estimate (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 40 }),
        fc.nat(),
        (pairs, seed) => {
          const a = pairs.map(([x]) => (x ? 1 : 0));
          const b = pairs.map(([, y]) => (y ? 1 : 0));
          const r1 = pairedBootstrap(a, b, { seed, resamples: 300 });
          const r2 = pairedBootstrap(a, b, { seed, resamples: 300 });
          expect(r1).toEqual(r2);
          expect(r1.delta).toBeCloseTo(mean(b) - mean(a), 12);
          expect(r1.ci[0]).toBeLessThanOrEqual(r1.delta);
          expect(r1.ci[1]).toBeGreaterThanOrEqual(r1.delta);
          expect(r1.ci[0]).toBeGreaterThanOrEqual(-1);
          expect(r1.ci[1]).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 50 },
    );
  });
  it('gives an interval excluding 0 for a clear improvement and including 0 for none', () => {
    const a = Array.from({ length: 100 }, (_, i) => (i < 30 ? 1 : 0));
    const better = Array.from({ length: 100 }, (_, i) => (i < 70 ? 1 : 0));
    expect(pairedBootstrap(a, better).ci[0]).toBeGreaterThan(0.25);
    const shuffled = a.map((_, i) => a[(i * 37) % 100]);
    const r = pairedBootstrap(a, shuffled);
    expect(r.ci[0]).toBeLessThan(0);
    expect(r.ci[1]).toBeGreaterThan(0);
  });
  it('refuses samples of different lengths', () => {
    expect(() => pairedBootstrap([1], [1, 0])).toThrow(/differ in length/);
  });
});

describe('clusterBootstrap', () => {
  it('with one trial per unit it is the paired bootstrap (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 30 }),
        fc.nat(),
        (pairs, seed) => {
          const a = pairs.map(([x]) => (x ? 1 : 0));
          const b = pairs.map(([, y]) => (y ? 1 : 0));
          const p = pairedBootstrap(a, b, { seed, resamples: 200 });
          const c = clusterBootstrap(
            a.map((x, i) => b[i] - x),
            a.map(() => 1),
            { seed, resamples: 200 },
          );
          expect(c.delta).toBeCloseTo(p.delta, 12);
          expect(c.ci[0]).toBeCloseTo(p.ci[0], 12);
          expect(c.ci[1]).toBeCloseTo(p.ci[1], 12);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('divides by the trials of each resample, so a pass-rate delta stays within [-1, 1]', () => {
    // Task x: 2 paired epochs, both fixed in B (sum +2); task y: 1 paired epoch, unchanged (0). Trial-level delta 2/3.
    // Resamples are {x,x} -> 4/4 = 1, {y,y} -> 0, {x,y} -> 2/3: the interval is [0, 1] exactly.
    const r = clusterBootstrap([2, 0], [2, 1], { resamples: 2000 });
    expect(r.delta).toBeCloseTo(2 / 3, 12);
    expect(r.ci).toEqual([0, 1]);
  });

  it('keeps the epochs of a task together: clustered evidence gives a wider interval than the same trials counted as independent', () => {
    // 10 tasks x 5 epochs; B fixes 3 tasks entirely (15 trials). As 50 independent trials the interval is narrower.
    const sums = Array.from({ length: 10 }, (_, i) => (i < 3 ? 5 : 0));
    const clustered = clusterBootstrap(
      sums,
      sums.map(() => 5),
    );
    const flat = clusterBootstrap(
      Array.from({ length: 50 }, (_, i) => (i < 15 ? 1 : 0)),
      Array.from({ length: 50 }, () => 1),
    );
    expect(clustered.delta).toBeCloseTo(flat.delta, 12);
    expect(clustered.ci[1] - clustered.ci[0]).toBeGreaterThan(1.5 * (flat.ci[1] - flat.ci[0]));
  });

  it('refuses mismatched inputs, sizes below 1 and a resample count below 1', () => {
    expect(() => clusterBootstrap([1], [1, 1])).toThrow(/1 sums but 2 sizes/);
    expect(() => clusterBootstrap([1], [0])).toThrow(/sizes must be positive integers/);
    expect(() => clusterBootstrap([1], [1], { resamples: 0 })).toThrow(/resamples must be a positive integer/);
  });
});

describe('helpers', () => {
  it('quantile interpolates like numpy', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([5], 0.9)).toBe(5);
  });
  it('seededRandom repeats for a seed and spreads over [0, 1)', () => {
    const r1 = seededRandom(42);
    const r2 = seededRandom(42);
    const xs = Array.from({ length: 1000 }, () => r1());
    expect(xs).toEqual(Array.from({ length: 1000 }, () => r2()));
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    expect(mean(xs)).toBeGreaterThan(0.45);
    expect(mean(xs)).toBeLessThan(0.55);
  });
});

describe('holm', () => {
  it('matches a worked example (in input order) and handles none, one and ties', () => {
    // Sorted 0.01, 0.02, 0.03, 0.04 -> 4*0.01, 3*0.02, 2*0.03, 1*0.04 made monotone: 0.04, 0.06, 0.06, 0.06.
    const out = holm([0.03, 0.01, 0.04, 0.02]);
    [0.06, 0.04, 0.06, 0.06].forEach((v, i) => expect(out[i]).toBeCloseTo(v, 12));
    expect(holm([])).toEqual([]);
    expect(holm([0.3])).toEqual([0.3]);
    expect(holm([0.5, 0.5])).toEqual([1, 1]);
    expect(() => holm([0.1, 1.5])).toThrow(RangeError);
    expect(() => holm([Number.NaN])).toThrow(RangeError);
  });

  it('adjusted p >= raw p, <= 1, at most m * p, and monotone in the raw p (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 30 }), (ps) => {
        const adj = holm(ps);
        expect(adj).toHaveLength(ps.length);
        ps.forEach((p, i) => {
          expect(adj[i]).toBeGreaterThanOrEqual(p);
          expect(adj[i]).toBeLessThanOrEqual(1);
          expect(adj[i]).toBeLessThanOrEqual(Math.min(1, ps.length * p) + 1e-12);
        });
        for (let i = 0; i < ps.length; i++)
          for (let j = 0; j < ps.length; j++) if (ps[i] < ps[j]) expect(adj[i]).toBeLessThanOrEqual(adj[j]);
      }),
    );
  });
});
