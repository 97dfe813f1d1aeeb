import { PyFloat, type PyDict, type PyValue } from './py-value.js';
import { QitosError, markErrorClass } from '../../../core/index.js';

/** A `Name(key=value, ...)` call in a literal (the tasks files' `Task(...)` and `Action(...)`). */
export class PyCall {
  constructor(
    readonly fn: string,
    readonly kwargs: Map<string, PyLiteral>,
  ) {}
}
/** What {@link parsePyLiteral} returns: a Python value, or calls holding them. */
export type PyLiteral = PyValue | PyCall | PyLiteral[] | Map<string, PyLiteral>;

/** A parse error naming the file, line and column. */
export class PyLiteralError extends QitosError {
  static {
    markErrorClass(this, 'PyLiteralError');
  }

  constructor(
    readonly file: string,
    readonly line: number,
    readonly col: number,
    message: string,
  ) {
    super('bench', `${file}:${line}:${col}: ${message}`);
    this.name = 'PyLiteralError';
  }
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

/**
 * Parses one Python expression of the literal subset the upstream files use, starting at `start` of `source`:
 * str (all quote forms, `r`/`u` prefixes, escapes, implicit concatenation), int, float, True/False/None, lists,
 * dicts with string keys, parentheses, unary minus, and calls with keyword arguments only. No evaluation; anything
 * else is a {@link PyLiteralError} with its line and column. Returns the value and where it ended.
 */
export function parsePyLiteral(source: string, start: number, file: string): { value: PyLiteral; end: number } {
  let i = start;
  const n = source.length;
  const fail = (msg: string, at = i): never => {
    let line = 1;
    let ls = 0;
    for (let k = 0; k < at; k++)
      if (source.charCodeAt(k) === 10) {
        line++;
        ls = k + 1;
      }
    throw new PyLiteralError(file, line, at - ls + 1, msg);
  };
  // Skips whitespace, newlines (the literal is always inside brackets) and comments.
  const skip = (): void => {
    while (i < n) {
      const c = source[i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f') i++;
      else if (c === '\\' && source[i + 1] === '\n') i += 2;
      else if (c === '#') {
        while (i < n && source[i] !== '\n') i++;
      } else break;
    }
  };
  const stringPart = (): string => {
    let raw = false;
    let p = i;
    while (p < n && /[rRuUbBfF]/.test(source[p])) p++;
    const prefix = source.slice(i, p).toLowerCase();
    if (prefix.includes('f')) fail('f-strings are not part of the literal subset');
    if (prefix.includes('b')) fail('bytes literals are not part of the literal subset');
    if (prefix.length > 1 && prefix !== 'r')
      fail(`string prefix '${source.slice(i, p)}' is not part of the literal subset`);
    raw = prefix === 'r';
    const q = source[p];
    const triple = source.startsWith(q.repeat(3), p);
    const open = i;
    i = p + (triple ? 3 : 1);
    let out = '';
    for (;;) {
      if (i >= n) fail('unterminated string literal', open);
      const c = source[i];
      if (triple ? source.startsWith(q.repeat(3), i) : c === q) {
        i += triple ? 3 : 1;
        return out;
      }
      if (!triple && c === '\n') fail('unterminated string literal', open);
      if (c !== '\\') {
        out += c;
        i++;
        continue;
      }
      const e = source[i + 1];
      if (raw) {
        out += c + (e ?? '');
        i += 2;
        continue;
      }
      if (e === '\n') {
        i += 2;
        continue;
      }
      if (e !== undefined && SIMPLE_ESCAPES[e] !== undefined) {
        out += SIMPLE_ESCAPES[e];
        i += 2;
        continue;
      }
      if (e !== undefined && /[0-7]/.test(e)) {
        const m = /^[0-7]{1,3}/.exec(source.slice(i + 1, i + 4))![0];
        out += String.fromCodePoint(parseInt(m, 8));
        i += 1 + m.length;
        continue;
      }
      const width = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
      if (width) {
        const h = source.slice(i + 2, i + 2 + width);
        if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(h)) fail(`truncated \\${e} escape`);
        const cp = parseInt(h, 16);
        if (cp > 0x10ffff) fail(`illegal Unicode character \\${e}${h}`);
        out += String.fromCodePoint(cp);
        i += 2 + width;
        continue;
      }
      if (e === 'N') fail('\\N{...} escapes are not part of the literal subset');
      out += '\\'; // CPython keeps an unknown escape as a backslash and the character
      i++;
    }
  };
  const isStringStart = (): boolean => /^(?:[rRuU]|[rR][bB]|[bBfF][rR]?|[rR][fF])?['"]/.test(source.slice(i, i + 3));
  const value = (): PyLiteral => {
    skip();
    if (i >= n) fail('unexpected end of file');
    const c = source[i];
    if (isStringStart()) {
      let s = stringPart();
      for (;;) {
        skip();
        if (i < n && isStringStart()) s += stringPart();
        else return s;
      }
    }
    if (c === '[') {
      i++;
      const items: PyLiteral[] = [];
      for (;;) {
        skip();
        if (source[i] === ']') {
          i++;
          return items;
        }
        items.push(value());
        skip();
        if (source[i] === ',') {
          i++;
          continue;
        }
        if (source[i] === ']') {
          i++;
          return items;
        }
        fail(`expected ',' or ']' in a list, found ${JSON.stringify(source[i] ?? 'end of file')}`);
      }
    }
    if (c === '{') {
      i++;
      const d = new Map<string, PyLiteral>();
      for (;;) {
        skip();
        if (source[i] === '}') {
          i++;
          return d;
        }
        const keyAt = i;
        const key = value();
        if (typeof key !== 'string') fail('dict keys must be strings in the literal subset', keyAt);
        skip();
        if (source[i] !== ':')
          fail(`expected ':' after a dict key, found ${JSON.stringify(source[i] ?? 'end of file')}`);
        i++;
        d.set(key as string, value());
        skip();
        if (source[i] === ',') {
          i++;
          continue;
        }
        if (source[i] === '}') {
          i++;
          return d;
        }
        fail(`expected ',' or '}' in a dict, found ${JSON.stringify(source[i] ?? 'end of file')}`);
      }
    }
    if (c === '(') {
      i++;
      const inner = value();
      skip();
      if (source[i] !== ')')
        fail(
          `expected ')' (tuples are not part of the literal subset), found ${JSON.stringify(source[i] ?? 'end of file')}`,
        );
      i++;
      return inner;
    }
    if (c === '-' || c === '+') {
      const at = i;
      i++;
      const v = value();
      if (typeof v === 'number') return c === '-' ? -v : v;
      if (v instanceof PyFloat) return new PyFloat(c === '-' ? -v.value : v.value);
      return fail('unary minus applies only to numbers here', at);
    }
    const num = /^(?:\d[\d_]*)?(?:\.\d[\d_]*|\.)?(?:[eE][-+]?\d+)?/.exec(source.slice(i, i + 64))![0];
    if (num && /\d/.test(num)) {
      i += num.length;
      const clean = num.replace(/_/g, '');
      if (/[.eE]/.test(clean)) return new PyFloat(Number(clean));
      if (clean.length > 1 && clean.startsWith('0') && /[1-9]/.test(clean))
        fail('leading zeros in decimal integer literals are not permitted', i - num.length);
      const v = Number(clean);
      if (!Number.isSafeInteger(v)) fail('integer literal too large for this parser', i - num.length);
      return v;
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i, i + 128))?.[0];
    if (ident) {
      const at = i;
      i += ident.length;
      if (ident === 'True') return true;
      if (ident === 'False') return false;
      if (ident === 'None') return null;
      skip();
      if (source[i] !== '(') fail(`name '${ident}' is not part of the literal subset`, at);
      i++;
      const kwargs = new Map<string, PyLiteral>();
      for (;;) {
        skip();
        if (source[i] === ')') {
          i++;
          return new PyCall(ident, kwargs);
        }
        const kwAt = i;
        const kw = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i, i + 128))?.[0];
        if (!kw) fail(`expected a keyword argument in ${ident}(...)`);
        i += kw!.length;
        skip();
        if (source[i] !== '=' || source[i + 1] === '=')
          fail(`only keyword arguments are part of the literal subset (in ${ident}(...))`, kwAt);
        i++;
        if (kwargs.has(kw!)) fail(`keyword argument repeated: ${kw}`, kwAt);
        kwargs.set(kw!, value());
        skip();
        if (source[i] === ',') {
          i++;
          continue;
        }
        if (source[i] === ')') {
          i++;
          return new PyCall(ident, kwargs);
        }
        fail(`expected ',' or ')' in ${ident}(...), found ${JSON.stringify(source[i] ?? 'end of file')}`);
      }
    }
    return fail(`unexpected ${JSON.stringify(c)}: not part of the literal subset`);
  };
  const v = value();
  return { value: v, end: i };
}

/** Parses `NAME = <literal>` at the top level of a module (the first assignment to NAME). */
export function parsePyAssignment(source: string, name: string, file: string): PyLiteral {
  const m = new RegExp(`^${name}\\s*=\\s*`, 'm').exec(source);
  if (!m) throw new PyLiteralError(file, 1, 1, `no top-level assignment to ${name}`);
  return parsePyLiteral(source, m.index + m[0].length, file).value;
}

/** Parses the dict literal a tool's `get_info()` returns. */
export function parseGetInfo(source: string, file: string): PyLiteral {
  const m = /def get_info\([^)]*\)[^:]*:\s*\n\s*return\s+/.exec(source);
  if (!m) throw new PyLiteralError(file, 1, 1, 'no get_info() that returns a literal');
  return parsePyLiteral(source, m.index + m[0].length, file).value;
}

/** A literal without calls as a Python value (dicts as Maps). */
export function literalToValue(v: PyLiteral, file: string): PyValue {
  if (v instanceof PyCall) throw new Error(`${file}: unexpected call ${v.fn}(...) where a value was expected`);
  if (Array.isArray(v)) return v.map((x) => literalToValue(x, file));
  if (v instanceof Map) {
    const d: PyDict = new Map();
    for (const [k, x] of v) d.set(k, literalToValue(x as PyLiteral, file));
    return d;
  }
  return v as PyValue;
}
