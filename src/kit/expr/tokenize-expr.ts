import { ExprError } from './expr-error.js';

/** A token of the expression language; `pos` is the 0-based offset of its first character. */
export type Token =
  | { kind: 'num'; value: number; text: string; pos: number }
  | { kind: 'str'; value: string; pos: number }
  | { kind: 'name'; value: string; pos: number }
  | { kind: 'op'; value: string; pos: number }
  | { kind: 'end'; pos: number };

// Longest first, so `**` wins over `*` and `<=` over `<`.
const OPERATORS = ['**', '==', '!=', '<=', '>=', '&&', '||', '??', '?.', '+', '-', '*', '/', '%', '^', '(', ')', '[', ']', '{', '}', ',', '.', ':', '?', '!', '<', '>'];
const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', '0': '\0', '\\': '\\', "'": "'", '"': '"', '/': '/' };
const HINTS: Record<string, string> = { '=': '; compare with ==', '&': '; "and" is &&', '|': '; "or" is ||' };

/** Splits a source into tokens, ending with an `end` token. Throws ExprError at the first character it cannot read. */
export function tokenizeExpr(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '"' || c === "'") {
      const [value, end] = readString(src, i);
      out.push({ kind: 'str', value, pos: i });
      i = end;
      continue;
    }
    const num = sticky(NUMBER, src, i);
    if (num) {
      out.push({ kind: 'num', value: Number(num[0]), text: num[0], pos: i });
      i += num[0].length;
      continue;
    }
    const name = sticky(NAME, src, i);
    if (name) {
      out.push({ kind: 'name', value: name[0], pos: i });
      i += name[0].length;
      continue;
    }
    // `?.` is optional chaining unless a digit follows (`a ?.5 : 1` is a conditional), as in JavaScript.
    const op = OPERATORS.find((o) => src.startsWith(o, i) && !(o === '?.' && /\d/.test(src[i + 2] ?? '')));
    if (op) {
      out.push({ kind: 'op', value: op, pos: i });
      i += op.length;
      continue;
    }
    const ch = String.fromCodePoint(src.codePointAt(i)!);
    throw new ExprError(`unexpected character "${ch}" at column ${i + 1}${HINTS[ch] ?? ''}`, i + 1);
  }
  out.push({ kind: 'end', pos: src.length });
  return out;
}

function sticky(re: RegExp, src: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(src);
}

/** Reads a quoted string starting at `start`; returns its value and the offset after the closing quote. */
function readString(src: string, start: number): [string, number] {
  const quote = src[start];
  let i = start + 1;
  let value = '';
  while (i < src.length) {
    const c = src[i];
    if (c === quote) return [value, i + 1];
    if (c !== '\\') {
      value += c;
      i++;
      continue;
    }
    const e = src[i + 1];
    if (e === undefined) break;
    if (e === 'u') {
      const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(src.slice(i + 2, i + 12));
      const plain = /^[0-9a-fA-F]{4}/.exec(src.slice(i + 2, i + 6));
      const code = braced ? parseInt(braced[1], 16) : plain ? parseInt(plain[0], 16) : -1;
      if (code < 0 || code > 0x10ffff) throw new ExprError(`invalid \\u escape at column ${i + 1}: write \\uXXXX or \\u{X...} with hex digits`, i + 1);
      value += braced ? String.fromCodePoint(code) : String.fromCharCode(code);
      i += 2 + (braced ? braced[0].length : 4);
      continue;
    }
    if (!Object.hasOwn(ESCAPES, e)) throw new ExprError(`unknown escape "\\${e}" at column ${i + 1}`, i + 1);
    value += ESCAPES[e];
    i += 2;
  }
  throw new ExprError(`the string starting at column ${start + 1} has no closing ${quote}`, start + 1);
}
