import { ExprError } from './expr-error.js';
import { MAX_NESTING, asData, isPlainObject, type ExprValue } from './expr-value.js';

/**
 * Writes a value as expression source that evaluates back to an equal value: `null`, `true`, `-0`, `1.5e+300`,
 * `"a\"b"`, `[1, "x"]`, `{"key": [true]}`. Infinity and NaN have no literal and throw ExprError, as does data
 * nested deeper than 1000 levels.
 */
export function formatValue(value: ExprValue): string {
  const write = (v: unknown, depth: number): string => {
    if (depth > MAX_NESTING) throw new ExprError(`the value nests deeper than ${MAX_NESTING} levels`);
    const d = asData(v, 'the value');
    if (d === null || typeof d === 'boolean') return String(d);
    if (typeof d === 'number') {
      if (!Number.isFinite(d)) throw new ExprError(`${d} has no literal in the expression language`);
      return Object.is(d, -0) ? '-0' : String(d);
    }
    if (typeof d === 'string') return JSON.stringify(d);
    if (Array.isArray(d)) return `[${d.map((x) => write(x, depth + 1)).join(', ')}]`;
    if (isPlainObject(d))
      return `{${Object.keys(d)
        .map((k) => `${JSON.stringify(k)}: ${write(d[k], depth + 1)}`)
        .join(', ')}}`;
    throw new ExprError('the value is not data');
  };
  return write(value, 0);
}
