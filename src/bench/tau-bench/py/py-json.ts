import { PyException, PyFloat, PyTuple, type PyDict, type PyValue } from './py-value.js';
import { pyFloatRepr } from './py-repr.js';

/** `json.JSONDecodeError` with CPython's message: `<what>: line L column C (char P)`. */
function decodeError(what: string, text: string, pos: number): PyException {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < pos; i++)
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  return new PyException('JSONDecodeError', `${what}: line ${line} column ${pos - lineStart + 1} (char ${pos})`);
}

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;

/**
 * Python's `json.loads`: ints stay ints (bigint beyond 2^53), numbers with a fraction or exponent are floats,
 * objects are `Map`s in insertion order (a repeated key keeps its first position and its last value), `NaN` and
 * `Infinity` are accepted. Errors are CPython's wording.
 */
export function pyJsonParse(text: string): PyValue {
  let i = 0;
  const n = text.length;
  const ws = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else break;
    }
  };
  const str = (): string => {
    const start = i; // at the opening quote
    i++;
    let out = '';
    let chunk = i;
    for (;;) {
      if (i >= n) throw decodeError('Unterminated string starting at', text, start);
      const c = text.charCodeAt(i);
      if (c === 34) {
        out += text.slice(chunk, i);
        i++;
        return out;
      }
      if (c < 0x20) throw decodeError('Invalid control character at', text, i);
      if (c !== 92) {
        i++;
        continue;
      }
      out += text.slice(chunk, i);
      const e = text[i + 1];
      if (e === undefined) throw decodeError('Unterminated string starting at', text, start);
      const simple = (
        { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' } as Record<string, string>
      )[e];
      if (simple !== undefined) {
        out += simple;
        i += 2;
      } else if (e === 'u') {
        const h = text.slice(i + 2, i + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(h)) throw decodeError('Invalid \\uXXXX escape', text, i + 1);
        out += String.fromCharCode(parseInt(h, 16));
        i += 6;
      } else throw decodeError('Invalid \\escape', text, i);
      chunk = i;
    }
  };
  const value = (): PyValue => {
    if (i >= n) throw decodeError('Expecting value', text, i);
    const c = text.charCodeAt(i);
    if (c === 34) return str();
    if (c === 123) {
      const obj: PyDict = new Map();
      i++;
      ws();
      if (text.charCodeAt(i) === 125) {
        i++;
        return obj;
      }
      for (;;) {
        if (text.charCodeAt(i) !== 34) throw decodeError('Expecting property name enclosed in double quotes', text, i);
        const key = str();
        ws();
        if (text.charCodeAt(i) !== 58) throw decodeError("Expecting ':' delimiter", text, i);
        i++;
        ws();
        obj.set(key, value());
        ws();
        const d = text.charCodeAt(i);
        if (d === 125) {
          i++;
          return obj;
        }
        if (d !== 44) throw decodeError("Expecting ',' delimiter", text, i);
        i++;
        ws();
      }
    }
    if (c === 91) {
      const arr: PyValue[] = [];
      i++;
      ws();
      if (text.charCodeAt(i) === 93) {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        const d = text.charCodeAt(i);
        if (d === 93) {
          i++;
          return arr;
        }
        if (d !== 44) throw decodeError("Expecting ',' delimiter", text, i);
        i++;
        ws();
      }
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return null;
    }
    if (text.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (text.startsWith('NaN', i)) {
      i += 3;
      return new PyFloat(NaN);
    }
    if (text.startsWith('Infinity', i)) {
      i += 8;
      return new PyFloat(Infinity);
    }
    if (text.startsWith('-Infinity', i)) {
      i += 9;
      return new PyFloat(-Infinity);
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) throw decodeError('Expecting value', text, i);
    i += m[0].length;
    if (m[1] !== undefined || m[2] !== undefined) return new PyFloat(Number(m[0]));
    if (m[0].length < 16) return Number(m[0]);
    const big = BigInt(m[0]);
    return big <= BigInt(Number.MAX_SAFE_INTEGER) && big >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
  };
  ws();
  const v = value();
  ws();
  if (i !== n) throw decodeError('Extra data', text, i);
  return v;
}

const NEEDS_ESCAPE = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;

/** `json.dumps(s)` of a string with `ensure_ascii` (every code unit outside printable ASCII as `\uXXXX`). */
export function pyJsonString(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return `"${s}"`;
  let out = '"';
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c === 34) out += '\\"';
    else if (c === 92) out += '\\\\';
    else if (c >= 0x20 && c <= 0x7e) out += s[k];
    else if (c === 10) out += '\\n';
    else if (c === 13) out += '\\r';
    else if (c === 9) out += '\\t';
    else if (c === 8) out += '\\b';
    else if (c === 12) out += '\\f';
    else out += `\\u${c.toString(16).padStart(4, '0')}`;
  }
  return out + '"';
}

/** Python's `json.dumps(v)` with its defaults: separators `", "` and `": "`, `ensure_ascii`, `Infinity`/`NaN`. */
export function pyJsonDumps(v: PyValue): string {
  if (typeof v === 'string') return pyJsonString(v);
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (v === null) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (v instanceof PyFloat) {
    const x = v.value;
    if (Number.isNaN(x)) return 'NaN';
    if (x === Infinity) return 'Infinity';
    if (x === -Infinity) return '-Infinity';
    return pyFloatRepr(x);
  }
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    let out = '[';
    for (let k = 0; k < v.length; k++) out += (k ? ', ' : '') + pyJsonDumps(v[k]);
    return out + ']';
  }
  if (v instanceof Map) {
    if (v.size === 0) return '{}';
    let out = '{';
    let first = true;
    for (const [k, x] of v) {
      out += (first ? '' : ', ') + pyJsonString(k) + ': ' + pyJsonDumps(x);
      first = false;
    }
    return out + '}';
  }
  if (v instanceof PyTuple) return pyJsonDumps(v.items);
  throw new PyException('TypeError', 'Object of type ellipsis is not JSON serializable');
}
