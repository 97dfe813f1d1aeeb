/**
 * JSON with object keys sorted at every level, so equal values give equal strings whatever their key order.
 * Used for request hashes and for comparing tool arguments (doom-loop detection). `undefined` fields are dropped;
 * every own key is kept, `__proto__` included.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object' && isPlain(value)) {
    // Null prototype: an own "__proto__" key (JSON.parse makes one) is a plain property here, not a prototype
    // change that would drop it (and make `{"__proto__":1}` hash like `{}`).
    const out: Record<string, unknown> = Object.create(null);
    for (const k of Object.keys(value as object).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/** Plain objects (literal, JSON.parse, or null-prototype); class instances such as Date serialize as they are. */
function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
