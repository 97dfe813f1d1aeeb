import { canonicalJson } from '../../core/index.js';
import { show } from '../scorer.js';

/** How two JSON values are compared: `exact` (same keys everywhere) or `subset` (every expected key, extra keys allowed). */
export type JsonCompareMode = 'exact' | 'subset';

/** The first difference found, or none. `path` is where (`$.items[2].price`). */
export type JsonDifference = { path: string; why: string } | undefined;

/**
 * Compares `got` with `want` recursively and returns the first difference. Numbers are equal within `tolerance`;
 * lists must have the same length and match item by item; objects must have the same keys (`exact`) or at least
 * the expected ones (`subset`: `want` is a pattern the answer must contain).
 */
export function jsonDifference(
  got: unknown,
  want: unknown,
  options: { mode?: JsonCompareMode; tolerance?: number } = {},
  path = '$',
): JsonDifference {
  const tol = options.tolerance ?? 0;
  if (typeof want === 'number' && typeof got === 'number') {
    return Math.abs(got - want) <= tol
      ? undefined
      : { path, why: `is ${got}, expected ${want}${tol ? ` (tolerance ${tol})` : ''}` };
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return { path, why: `is ${show(got, 60)}, expected a list` };
    if (got.length !== want.length) return { path, why: `has ${got.length} items, expected ${want.length}` };
    for (let i = 0; i < want.length; i++) {
      const d = jsonDifference(got[i], want[i], options, `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (want !== null && typeof want === 'object') {
    if (got === null || typeof got !== 'object' || Array.isArray(got))
      return { path, why: `is ${show(got, 60)}, expected an object` };
    const g = got as Record<string, unknown>;
    const w = want as Record<string, unknown>;
    for (const k of Object.keys(w)) {
      const at = /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`;
      if (!Object.hasOwn(g, k)) return { path: at, why: 'is missing' };
      const d = jsonDifference(g[k], w[k], options, at);
      if (d) return d;
    }
    if ((options.mode ?? 'exact') === 'exact') {
      const extra = Object.keys(g).find((k) => !Object.hasOwn(w, k));
      if (extra !== undefined) return { path, why: `has the unexpected key ${JSON.stringify(extra)}` };
    }
    return undefined;
  }
  return canonicalJson(got) === canonicalJson(want)
    ? undefined
    : { path, why: `is ${show(got, 60)}, expected ${show(want, 60)}` };
}
