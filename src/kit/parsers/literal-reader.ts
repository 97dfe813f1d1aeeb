/**
 * A reader for the argument literals models write: JSON plus Python's spelling of it (`'str'`, `"""multi-line"""`,
 * `True`/`False`/`None`, tuples, trailing commas, `r"raw"` strings). It reads from a position and reports where it
 * stopped, so a caller can read a value that spans lines without splitting the text first. It never evaluates
 * anything and never throws: every problem comes back as a `LiteralError` with the offset and what was expected.
 */
import { MAX_JSON_DEPTH } from '../../core/index.js';

/** Why a literal could not be read, and where (offset into the text). */
export class LiteralError {
  constructor(
    readonly message: string,
    readonly offset: number,
  ) {}
}

/** A value that was read and the offset just after it. */
export interface ReadResult {
  value: unknown;
  end: number;
}

/** The one nesting limit for what qitos reads from outside (the reader recurses, a level costs a few frames). */
const MAX_DEPTH = MAX_JSON_DEPTH;
const NUMBER = /[-+]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?/y;
const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
const CONSTANTS: Record<string, unknown> = {
  true: true,
  false: false,
  null: null,
  True: true,
  False: false,
  None: null,
};

/** Sets an own property, also for keys such as `__proto__` (a plain assignment would change the prototype). */
export function setKey(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Index of the first non-whitespace character at or after `i` (newlines count as whitespace). */
export function skipSpace(text: string, i: number): number {
  while (i < text.length && /\s/.test(text[i])) i++;
  return i;
}

/** Reads one literal starting at `start` (leading whitespace skipped). */
export function readLiteral(text: string, start: number): ReadResult | LiteralError {
  return readValue(text, skipSpace(text, start), 0);
}

/**
 * Reads a call's argument list, `(k=v, k2=v2)`, starting at the `(`. A single positional object,
 * `({"k": v})`, is taken as the arguments. Returns the arguments and the offset after `)`.
 */
export function readCallArgs(
  text: string,
  open: number,
): { args: Record<string, unknown>; end: number } | LiteralError {
  const args: Record<string, unknown> = {};
  let i = skipSpace(text, open + 1);
  let positional = 0;
  while (i < text.length && text[i] !== ')') {
    IDENT.lastIndex = i;
    const m = IDENT.exec(text);
    const afterName = m ? skipSpace(text, i + m[0].length) : i;
    if (m && text[afterName] === '=' && text[afterName + 1] !== '=') {
      const v = readValue(text, skipSpace(text, afterName + 1), 1);
      if (v instanceof LiteralError) return new LiteralError(`argument "${m[0]}": ${v.message}`, v.offset);
      if (Object.prototype.hasOwnProperty.call(args, m[0]))
        return new LiteralError(`argument "${m[0]}" is given twice`, i);
      setKey(args, m[0], v.value);
      i = v.end;
    } else {
      const v = readValue(text, i, 1);
      if (v instanceof LiteralError) return v;
      positional++;
      if (positional > 1 || Object.keys(args).length || !isPlainObject(v.value)) {
        return new LiteralError('arguments must be written as name=value pairs, e.g. tool(path="a.txt", limit=10)', i);
      }
      for (const [k, val] of Object.entries(v.value)) setKey(args, k, val);
      i = v.end;
    }
    i = skipSpace(text, i);
    if (text[i] === ',') i = skipSpace(text, i + 1);
    else if (i < text.length && text[i] !== ')')
      return new LiteralError(`expected "," or ")" after an argument, found ${describe(text, i)}`, i);
  }
  if (i >= text.length)
    return new LiteralError('the argument list is not closed: add ")" after the last argument', text.length);
  return { args, end: i + 1 };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(text: string, i: number): string {
  if (i >= text.length) return 'the end of the reply';
  const line = text.slice(i, i + 20).split('\n')[0];
  return JSON.stringify(line || text[i]);
}

function readValue(text: string, i: number, depth: number): ReadResult | LiteralError {
  if (depth > MAX_DEPTH) return new LiteralError(`values are nested more than ${MAX_DEPTH} levels deep`, i);
  if (i >= text.length) return new LiteralError('expected a value, found the end of the reply', i);
  const c = text[i];
  if (c === '"' || c === "'") return readString(text, i, false);
  if ((c === 'r' || c === 'R') && (text[i + 1] === '"' || text[i + 1] === "'")) return readString(text, i + 1, true);
  if (c === '[' || c === '(') return readList(text, i, depth);
  if (c === '{') return readDict(text, i, depth);
  NUMBER.lastIndex = i;
  const num = NUMBER.exec(text);
  if (num && !/[A-Za-z_]/.test(text[i + num[0].length] ?? '')) {
    const n = Number(num[0].replace(/_/g, ''));
    if (!Number.isFinite(n)) return new LiteralError(`number ${num[0]} is out of range`, i);
    return { value: n, end: i + num[0].length };
  }
  IDENT.lastIndex = i;
  const id = IDENT.exec(text);
  if (id && id[0] in CONSTANTS) return { value: CONSTANTS[id[0]], end: i + id[0].length };
  if (id) return new LiteralError(`unquoted text ${JSON.stringify(id[0])}: put strings in quotes, e.g. "${id[0]}"`, i);
  return new LiteralError(
    `expected a value (a quoted string, number, true/false/null, [list] or {object}), found ${describe(text, i)}`,
    i,
  );
}

function readString(text: string, i: number, raw: boolean): ReadResult | LiteralError {
  const q = text[i];
  const triple = text.startsWith(q.repeat(3), i);
  const close = triple ? q.repeat(3) : q;
  let j = i + close.length;
  let out = '';
  while (j < text.length) {
    if (text.startsWith(close, j)) return { value: out, end: j + close.length };
    const c = text[j];
    if (c !== '\\') {
      out += c;
      j++;
      continue;
    }
    const e = text[j + 1];
    if (e === undefined) break;
    if (raw) {
      // raw strings keep the backslash; it still stops the quote from closing the string
      out += c + e;
      j += 2;
      continue;
    }
    const esc = unescape(text, j);
    if (esc instanceof LiteralError) return esc;
    out += esc.text;
    j = esc.end;
  }
  return new LiteralError(`the string starting with ${q} is not closed`, i);
}

const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
  v: '\v',
  '0': '\0',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '/': '/',
  '\n': '',
};

function unescape(text: string, j: number): { text: string; end: number } | LiteralError {
  const e = text[j + 1];
  if (e in SIMPLE_ESCAPES) return { text: SIMPLE_ESCAPES[e], end: j + 2 };
  if (e === 'u' || e === 'x' || e === 'U') {
    const len = e === 'x' ? 2 : e === 'u' ? 4 : 8;
    const hex = text.slice(j + 2, j + 2 + len);
    if (hex.length !== len || !/^[0-9a-fA-F]+$/.test(hex))
      return new LiteralError(`bad escape \\${e}${hex}: expected ${len} hex digits`, j);
    const cp = parseInt(hex, 16);
    if (cp > 0x10ffff) return new LiteralError(`bad escape \\${e}${hex}: not a code point`, j);
    return { text: e === 'U' ? String.fromCodePoint(cp) : String.fromCharCode(cp), end: j + 2 + len };
  }
  // Python keeps unknown escapes as written (e.g. "\d" in a regex)
  return { text: '\\' + e, end: j + 2 };
}

function readList(text: string, i: number, depth: number): ReadResult | LiteralError {
  const closer = text[i] === '[' ? ']' : ')';
  const out: unknown[] = [];
  let j = skipSpace(text, i + 1);
  while (j < text.length && text[j] !== closer) {
    const v = readValue(text, j, depth + 1);
    if (v instanceof LiteralError) return v;
    out.push(v.value);
    j = skipSpace(text, v.end);
    if (text[j] === ',') j = skipSpace(text, j + 1);
    else if (text[j] !== closer)
      return new LiteralError(`expected "," or "${closer}" in a list, found ${describe(text, j)}`, j);
  }
  if (j >= text.length)
    return new LiteralError(`the list starting with "${text[i]}" is not closed: add "${closer}"`, i);
  return { value: out, end: j + 1 };
}

function readDict(text: string, i: number, depth: number): ReadResult | LiteralError {
  const out: Record<string, unknown> = {};
  let j = skipSpace(text, i + 1);
  while (j < text.length && text[j] !== '}') {
    const k = readValue(text, j, depth + 1);
    if (k instanceof LiteralError) return k;
    if (typeof k.value === 'object' && k.value !== null)
      return new LiteralError('object keys must be strings or numbers', j);
    j = skipSpace(text, k.end);
    if (text[j] !== ':')
      return new LiteralError(
        `expected ":" after the object key ${JSON.stringify(k.value)}, found ${describe(text, j)}`,
        j,
      );
    const v = readValue(text, skipSpace(text, j + 1), depth + 1);
    if (v instanceof LiteralError) return v;
    setKey(out, String(k.value), v.value);
    j = skipSpace(text, v.end);
    if (text[j] === ',') j = skipSpace(text, j + 1);
    else if (text[j] !== '}')
      return new LiteralError(`expected "," or "}" in an object, found ${describe(text, j)}`, j);
  }
  if (j >= text.length) return new LiteralError('the object starting with "{" is not closed: add "}"', i);
  return { value: out, end: j + 1 };
}
