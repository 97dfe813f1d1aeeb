/**
 * Pure statistics for benchmark runs: confidence intervals, pass@k / pass^k, a seeded paired bootstrap and the
 * exact McNemar test. No I/O, no randomness without a seed, so every figure in a report can be reproduced.
 */

/** z for a two-sided 95% normal interval. */
export const Z95 = 1.959963984540054;

/** A proportion with its Wilson score interval. */
export interface Proportion {
  successes: number;
  total: number;
  /** successes / total (0 when total is 0). */
  rate: number;
  /** Lower and upper bound of the interval (0 and 1 when total is 0: nothing is known). */
  ci: [number, number];
}

/**
 * Wilson score interval for `successes` out of `total` trials. Unlike the normal (Wald) interval it stays inside
 * [0, 1] and does not collapse to a point at 0% or 100%, which matters for small suites.
 */
export function wilson(successes: number, total: number, z = Z95): Proportion {
  if (!Number.isInteger(successes) || !Number.isInteger(total) || successes < 0 || total < 0 || successes > total) {
    throw new RangeError(`wilson: need integers 0 <= successes <= total, got ${successes}/${total}`);
  }
  if (total === 0) return { successes, total, rate: 0, ci: [0, 1] };
  const p = successes / total;
  const z2 = z * z;
  const denom = 1 + z2 / total;
  const centre = (p + z2 / (2 * total)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / total + z2 / (4 * total * total))) / denom;
  // Clamp float noise; at p = 0 or 1 the matching bound is exact.
  const lo = successes === 0 ? 0 : Math.max(0, centre - half);
  const hi = successes === total ? 1 : Math.min(1, centre + half);
  return { successes, total, rate: p, ci: [lo, hi] };
}

/**
 * Unbiased pass@k from `n` samples of which `c` passed (Chen et al. 2021): the chance that at least one of k
 * samples drawn without replacement passes, 1 - C(n-c, k) / C(n, k), computed as a stable product.
 */
export function passAtK(n: number, c: number, k: number): number {
  checkNck(n, c, k, 'passAtK');
  if (n - c < k) return 1;
  let prodFail = 1;
  for (let i = n - c + 1; i <= n; i++) prodFail *= 1 - k / i;
  return 1 - prodFail;
}

/**
 * pass^k (Yao et al., tau-bench): the chance that k samples drawn without replacement all pass, C(c, k) / C(n, k).
 * It measures reliability where pass@k measures coverage.
 */
export function passHatK(n: number, c: number, k: number): number {
  checkNck(n, c, k, 'passHatK');
  if (c < k) return 0;
  let r = 1;
  for (let i = 0; i < k; i++) r *= (c - i) / (n - i);
  return r;
}

function checkNck(n: number, c: number, k: number, fn: string): void {
  if (![n, c, k].every(Number.isInteger) || n < 1 || c < 0 || c > n || k < 1 || k > n) {
    throw new RangeError(`${fn}: need integers 1 <= k <= n and 0 <= c <= n, got n=${n} c=${c} k=${k}`);
  }
}

/** Arithmetic mean (NaN for no values). */
export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

/** Linear-interpolated quantile (q in [0, 1]) of values (the same definition as numpy's default). */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * Math.min(1, Math.max(0, q));
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** A small, fast, seeded PRNG (mulberry32) returning floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Result of a paired bootstrap of a mean difference. */
export interface BootstrapResult {
  /** Mean of `b - a` over the pairs. */
  delta: number;
  /** Percentile interval of the resampled means. */
  ci: [number, number];
  resamples: number;
  seed: number;
}

/**
 * Paired bootstrap of mean(b_i - a_i): resample the pairs (units, e.g. tasks) with replacement `resamples` times
 * and take the percentile interval. Seeded, so the same inputs give the same interval.
 */
export function pairedBootstrap(
  a: readonly number[],
  b: readonly number[],
  options: { resamples?: number; seed?: number; level?: number } = {},
): BootstrapResult {
  if (a.length !== b.length)
    throw new RangeError(`pairedBootstrap: the two samples differ in length (${a.length} vs ${b.length})`);
  const resamples = options.resamples ?? 10_000;
  const seed = options.seed ?? 1;
  const level = options.level ?? 0.95;
  const n = a.length;
  if (n === 0) return { delta: 0, ci: [0, 0], resamples, seed };
  const d = a.map((x, i) => b[i] - x);
  const delta = mean(d);
  const rand = seededRandom(seed);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += d[Math.floor(rand() * n)];
    means[r] = s / n;
  }
  means.sort();
  const alpha = (1 - level) / 2;
  const pick = (q: number) => {
    const pos = (resamples - 1) * q;
    const lo = Math.floor(pos);
    const hi = Math.ceil(pos);
    return means[lo] + (means[hi] - means[lo]) * (pos - lo);
  };
  // The point estimate is inside the interval by construction except for float noise; clamp it in.
  return { delta, ci: [Math.min(pick(alpha), delta), Math.max(pick(1 - alpha), delta)], resamples, seed };
}

/**
 * Cluster (ratio) bootstrap of a paired difference when each unit (task) holds several trials (epochs):
 * `diffSums[i]` is the sum of (b - a) over unit i's `sizes[i]` trials. Resamples units with replacement and takes
 * sum(diffSums) / sum(sizes) over each resample, so the epochs of one task move together and are never counted as
 * independent evidence. With every size 1 it is `pairedBootstrap` (the same resamples for the same seed).
 */
export function clusterBootstrap(
  diffSums: readonly number[],
  sizes: readonly number[],
  options: { resamples?: number; seed?: number; level?: number } = {},
): BootstrapResult {
  if (diffSums.length !== sizes.length)
    throw new RangeError(`clusterBootstrap: ${diffSums.length} sums but ${sizes.length} sizes`);
  if (!sizes.every((n) => Number.isInteger(n) && n > 0))
    throw new RangeError('clusterBootstrap: sizes must be positive integers');
  const resamples = options.resamples ?? 10_000;
  const seed = options.seed ?? 1;
  const level = options.level ?? 0.95;
  if (!Number.isInteger(resamples) || resamples < 1)
    throw new RangeError(`clusterBootstrap: resamples must be a positive integer, got ${resamples}`);
  if (!(level > 0 && level < 1)) throw new RangeError(`clusterBootstrap: level must be in (0, 1), got ${level}`);
  const n = sizes.length;
  if (n === 0) return { delta: 0, ci: [0, 0], resamples, seed };
  let total = 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    total += sizes[i];
    sum += diffSums[i];
  }
  const delta = sum / total;
  const rand = seededRandom(seed);
  const ratios = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    let t = 0;
    for (let i = 0; i < n; i++) {
      const j = Math.floor(rand() * n);
      s += diffSums[j];
      t += sizes[j];
    }
    ratios[r] = s / t;
  }
  ratios.sort();
  const alpha = (1 - level) / 2;
  const pick = (q: number) => {
    const pos = (resamples - 1) * q;
    const lo = Math.floor(pos);
    const hi = Math.ceil(pos);
    return ratios[lo] + (ratios[hi] - ratios[lo]) * (pos - lo);
  };
  return { delta, ci: [Math.min(pick(alpha), delta), Math.max(pick(1 - alpha), delta)], resamples, seed };
}

/** Exact McNemar test on the discordant pairs of a paired binary outcome. */
export interface McNemarResult {
  /** Pairs that passed in A and failed in B. */
  aOnly: number;
  /** Pairs that failed in A and passed in B. */
  bOnly: number;
  /** Two-sided p-value of the exact binomial test of aOnly vs bOnly under p = 1/2. */
  pValue: number;
}

/**
 * Exact McNemar test: under "A and B are equally good", each discordant pair is a fair coin, so the smaller count
 * follows Binomial(aOnly + bOnly, 1/2). Two-sided p = min(1, 2 * P(X <= min)). Computed in log space, so it
 * stays exact-ish for thousands of pairs.
 */
export function mcnemarExact(aOnly: number, bOnly: number): McNemarResult {
  if (!Number.isInteger(aOnly) || !Number.isInteger(bOnly) || aOnly < 0 || bOnly < 0) {
    throw new RangeError(`mcnemarExact: counts must be non-negative integers, got ${aOnly} and ${bOnly}`);
  }
  const n = aOnly + bOnly;
  if (n === 0) return { aOnly, bOnly, pValue: 1 };
  const m = Math.min(aOnly, bOnly);
  const ln2n = n * Math.LN2;
  let logC = 0; // log C(n, 0)
  const logs: number[] = [];
  for (let i = 0; i <= m; i++) {
    logs.push(logC - ln2n);
    logC += Math.log(n - i) - Math.log(i + 1);
  }
  const max = Math.max(...logs);
  let s = 0;
  for (const l of logs) s += Math.exp(l - max);
  const tail = Math.exp(max + Math.log(s));
  return { aOnly, bOnly, pValue: Math.min(1, 2 * tail) };
}

/**
 * Holm-Bonferroni step-down adjustment of the p-values of m tests, returned in the input order. The smallest p is
 * multiplied by m, the next by m - 1, and so on, each made at least the one before it (so the order of the raw
 * p-values is kept) and at most 1. Rejecting where the adjusted p < alpha controls the family-wise error rate at
 * alpha for any dependence between the tests, and rejects at least as much as plain Bonferroni.
 */
export function holm(pValues: readonly number[]): number[] {
  for (const p of pValues) if (!(p >= 0 && p <= 1)) throw new RangeError(`holm: p-values must be in [0, 1], got ${p}`);
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p || a.i - b.i);
  const out = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    out[i] = running;
  });
  return out;
}
