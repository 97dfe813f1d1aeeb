import { PyFloat, PyTuple, PyEllipsis, type PyValue } from './py-value.js';

/** CPython's `repr(float)`: the shortest round-trip digits, scientific below 1e-4 and from 1e16, `.0` otherwise. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return `${x}.0`;
  // toExponential() without digits gives the shortest digits that round-trip, like CPython's repr.
  const e = x.toExponential();
  const at = e.indexOf('e');
  const exp = Number(e.slice(at + 1));
  const neg = x < 0;
  const digits = e.slice(neg ? 1 : 0, at).replace('.', '');
  let s: string;
  if (exp < -4 || exp >= 16) {
    s =
      digits[0] +
      (digits.length > 1 ? `.${digits.slice(1)}` : '') +
      (exp < 0 ? 'e-' : 'e+') +
      String(Math.abs(exp)).padStart(2, '0');
  } else if (exp >= 0) {
    s =
      digits.length <= exp + 1
        ? `${digits}${'0'.repeat(exp + 1 - digits.length)}.0`
        : `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  } else {
    s = `0.${'0'.repeat(-exp - 1)}${digits}`;
  }
  return neg ? `-${s}` : s;
}

const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;
const PLAIN_ASCII = /^[\x20-\x26\x28-\x5b\x5d-\x7e]*$/;

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/** CPython's `repr(str)`: its quote choice (`'` unless the text has `'` and no `"`), escapes and printable test. */
export function pyStrRepr(s: string): string {
  if (PLAIN_ASCII.test(s)) return `'${s}'`;
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (c < 0x20 || c === 0x7f) out += `\\x${hex(c, 2)}`;
    else if (c < 0x7f) out += ch;
    else if (!NOT_PRINTABLE.test(ch)) out += ch;
    else if (c <= 0xff) out += `\\x${hex(c, 2)}`;
    else if (c <= 0xffff) out += `\\u${hex(c, 4)}`;
    else out += `\\U${hex(c, 8)}`;
  }
  return out + quote;
}

/** Orders strings as Python does: by code point (a surrogate pair is one code point, a lone surrogate its own). */
export function pyStrCompare(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(j)!;
    if (x !== y) return x - y;
    i += x > 0xffff ? 2 : 1;
    j += y > 0xffff ? 2 : 1;
  }
  return a.length - i - (b.length - j);
}

const SURROGATE = /[\ud800-\udfff]/;

/** A dict's keys in Python's sorted order (JS's default sort agrees when no key has a character above U+FFFF). */
export function pySortedKeys(d: Map<string, unknown>): string[] {
  const keys = [...d.keys()];
  return keys.some((k) => SURROGATE.test(k)) ? keys.sort(pyStrCompare) : keys.sort();
}

/** Python's `repr` (== `str`) of a scalar: ints, floats, strings, True/False/None. */
export function pyScalarRepr(v: PyValue): string {
  if (typeof v === 'string') return pyStrRepr(v);
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null) return 'None';
  if (v instanceof PyFloat) return pyFloatRepr(v.value);
  if (v instanceof PyEllipsis) return 'Ellipsis';
  if (v instanceof PyTuple) return pyTupleRepr(v.items.map(pyScalarRepr));
  throw new TypeError('pyScalarRepr: not a scalar');
}

function pyTupleRepr(parts: string[]): string {
  if (parts.length === 0) return '()';
  if (parts.length === 1) return `(${parts[0]},)`;
  return `(${parts.join(', ')})`;
}

/**
 * `str(to_hashable(v))` of the original's `envs/base.py`: dicts become tuples of (key, value) pairs sorted by key,
 * lists become tuples, so `{}` and `[]` both print `()` and one element prints `(x,)`.
 */
export function pyHashableRepr(v: PyValue): string {
  if (Array.isArray(v)) return pyTupleRepr(v.map(pyHashableRepr));
  if (v instanceof Map) {
    const keys = pySortedKeys(v);
    return pyTupleRepr(keys.map((k) => `(${pyStrRepr(k)}, ${pyHashableRepr(v.get(k)!)})`));
  }
  return pyScalarRepr(v);
}

/** Python's `str(x)` as an f-string prints it (strings bare, containers with reprs inside). */
export function pyStr(v: PyValue): string {
  if (typeof v === 'string') return v;
  return pyRepr(v);
}

/** Python's `repr(x)` for any JSON-shaped value (dicts `{'k': v}`, lists `[a, b]`). */
export function pyRepr(v: PyValue): string {
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${pyStrRepr(k)}: ${pyRepr(x)}`).join(', ')}}`;
  return pyScalarRepr(v);
}
