import { LiteralError, readLiteral } from '../parsers/index.js';
import { ExprError } from './expr-error.js';

/** A token of the expression language; `pos` is the 0-based offset of its first character. */
export type Token =
  | { kind: 'num'; value: number; text: string; pos: number }
  | { kind: 'str'; value: string; pos: number }
  | { kind: 'name'; value: string; pos: number }
  | { kind: 'op'; value: string; pos: number }
  | { kind: 'end'; pos: number };

// Two-character operators are tried first, so `**` wins over `*` and `<=` over `<`.
const TWO = new Set(['**', '==', '!=', '<=', '>=', '&&', '||', '??', '?.']);
const ONE = new Set(['+', '-', '*', '/', '%', '^', '(', ')', '[', ']', '{', '}', ',', '.', ':', '?', '!', '<', '>']);
const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const HINTS: Record<string, string> = { '=': '; compare with ==', '&': '; "and" is &&', '|': '; "or" is ||' };

/** Splits a source into tokens, ending with an `end` token. Throws ExprError at the first character it cannot read. */
export function tokenizeExpr(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === ' ' || (c < '!' && (c === '\t' || c === '\n' || c === '\r')) || (c > '~' && /\s/.test(c))) {
      i++;
      continue;
    }
    if (c === '"' || c === "'") {
      // The parsers' literal reader: JSON's escapes and Python's (\xNN, \UXXXXXXXX, unknown ones kept, so
      // `matches(s, "\d+")` means what it says), and triple quotes. It never throws.
      const r = readLiteral(src, i);
      if (r instanceof LiteralError) throw new ExprError(`${r.message} (column ${r.offset + 1})`, r.offset + 1);
      out.push({ kind: 'str', value: r.value as string, pos: i });
      i = r.end;
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
    const two = src.slice(i, i + 2);
    const op = TWO.has(two) && !(two === '?.' && /\d/.test(src[i + 2] ?? '')) ? two : ONE.has(c) ? c : undefined;
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
