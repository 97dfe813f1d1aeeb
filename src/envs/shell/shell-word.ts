import type { SyntaxNode } from './bash-grammar.js';

/** A part of a word known only when it runs (an expansion, a substitution, a glob), with how it was written. */
export interface Hole {
  hole: string;
}

/** A piece of a word: text the shell passes on as it is, or a {@link Hole}. */
export type Piece = string | Hole;

/**
 * A shell word as the program will receive it: its pieces with quotes and escapes removed. `bare`: it holds an
 * unquoted expansion, so it may become no word or several (`$CMD`).
 */
export interface Word {
  pieces: Piece[];
  bare: boolean;
  /** Its text as written (for messages). */
  raw: string;
}

/** The word's text when it has no hole, else undefined. */
export function literal(w: Word): string | undefined {
  let out = '';
  for (const p of w.pieces) {
    if (typeof p !== 'string') return undefined;
    out += p;
  }
  return out;
}

/** The word as shown: its text, with each hole as written. */
export function shown(w: Word): string {
  return w.pieces.map((p) => (typeof p === 'string' ? p : p.hole)).join('');
}

/**
 * Stand-ins for an escaped space and tab between tokens (private-use characters), which the reader puts where the
 * grammar would drop them (see its lexicalFixes); a word turns them back into the blank.
 */
export const ESCAPED_BLANKS = '\uE000\uE001';

/** A word of plain text (what a wrapper's option parser or `xargs` makes up). */
export function textWord(text: string): Word {
  return { pieces: [text], bare: false, raw: text };
}

/** A word that may be anything (the arguments `xargs` adds, the `{}` of `find -exec`). */
export function holeWord(raw: string): Word {
  return { pieces: [{ hole: raw }], bare: true, raw };
}

/** The word a node of the command line stands for (`word`, `string`, `concatenation`, ...). */
export function wordOf(node: SyntaxNode, source: string): Word {
  const raw = source.slice(node.start, node.end);
  const pieces: Piece[] = [];
  const state: WordState = { bare: false, brace: false, open: false, close: false, comma: false };
  addPieces(node, source, pieces, state);
  // Brace expansion (`{rm,x}`, `{a..c}`) makes several words out of one: what they are is known only when it runs.
  // The grammar splits `{rm,x}` into three words, so the braces and the comma are looked for over the whole word.
  if (state.brace || (state.open && state.close && state.comma)) return { pieces: [{ hole: raw }], bare: true, raw };
  return { pieces: merge(pieces), bare: state.bare, raw };
}

interface WordState {
  bare: boolean;
  brace: boolean;
  open: boolean;
  close: boolean;
  comma: boolean;
}

function addPieces(node: SyntaxNode, source: string, out: Piece[], state: WordState): void {
  const text = source.slice(node.start, node.end);
  switch (node.type) {
    case 'word':
      unquoted(text, out, state);
      return;
    case 'number':
    case 'variable_name':
    case 'test_operator':
      if (node.children.length) break;
      out.push(text);
      return;
    case 'raw_string':
      out.push(text.slice(1, -1));
      return;
    case 'ansi_c_string':
      out.push(ansiC(text.slice(2, -1)));
      return;
    case 'string':
      doubleQuoted(node, source, out);
      return;
    case 'translated_string':
      if (node.children.length === 1) return addPieces(node.children[0], source, out, state);
      break;
    case 'concatenation':
      for (const c of node.children) addPieces(c, source, out, state);
      return;
    case 'brace_expression':
      state.brace = true;
      return;
    case 'simple_expansion':
    case 'expansion':
    case 'command_substitution':
    case 'process_substitution':
    case 'arithmetic_expansion':
      state.bare = true;
      out.push({ hole: text });
      return;
  }
  // Anything else (an array, an extended glob, a node the grammar adds later): known only when it runs.
  state.bare = true;
  out.push({ hole: text });
}

/** An unquoted word: `\x` is `x`, `\` + newline nothing, `*`, `?` and `[...]` globs; braces may expand. */
function unquoted(text: string, out: Piece[], state: WordState): void {
  let cur = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\') {
      if (text[i + 1] !== '\n' && i + 1 < text.length) cur += text[i + 1];
      i++;
      continue;
    }
    if (ch === ESCAPED_BLANKS[0] || ch === ESCAPED_BLANKS[1]) {
      cur += ch === ESCAPED_BLANKS[0] ? ' ' : '\t';
      continue;
    }
    if (ch === '*' || ch === '?' || (ch === '[' && text.indexOf(']', i + 1) > i)) {
      if (cur) out.push(cur);
      cur = '';
      const end = ch === '[' ? text.indexOf(']', i + 1) : i;
      out.push({ hole: text.slice(i, end + 1) });
      state.bare = true;
      i = end;
      continue;
    }
    if (ch === '{') state.open = true;
    if (ch === '}') state.close = true;
    if (ch === ',' || (ch === '.' && text[i + 1] === '.')) state.comma = true;
    cur += ch;
  }
  if (cur) out.push(cur);
}

/** A double-quoted string: its text with `\$`, `` \` ``, `\"`, `\\` and `\` + newline undone; expansions are holes. */
function doubleQuoted(node: SyntaxNode, source: string, out: Piece[]): void {
  let at = node.start + 1;
  const end = node.end - 1;
  const text = (from: number, to: number) => {
    if (to > from) out.push(undoDoubleQuoteEscapes(source.slice(from, to)));
  };
  for (const c of node.children) {
    if (c.start < at || c.end > end) continue; // the quotes themselves
    text(at, c.start);
    if (c.type === 'string_content') text(c.start, c.end);
    else out.push({ hole: source.slice(c.start, c.end) });
    at = c.end;
  }
  text(at, end);
}

function undoDoubleQuoteEscapes(s: string): string {
  return s.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c));
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** The text of `$'...'` (ANSI-C quoting) as bash decodes it; a NUL ends it, as in bash. */
export function ansiC(body: string): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch !== '\\' || i + 1 >= body.length) {
      out += ch;
      continue;
    }
    const e = body[++i];
    let code: number | undefined;
    let m: RegExpMatchArray | null;
    if (e in SIMPLE_ESCAPES) out += SIMPLE_ESCAPES[e];
    else if ((m = /^[0-7]{1,3}/.exec(body.slice(i)))) {
      code = parseInt(m[0], 8) & 0xff;
      i += m[0].length - 1;
    } else if (e === 'x' && (m = /^[0-9a-fA-F]{1,2}/.exec(body.slice(i + 1)))) {
      code = parseInt(m[0], 16);
      i += m[0].length;
    } else if (
      (e === 'u' || e === 'U') &&
      (m = new RegExp(`^[0-9a-fA-F]{1,${e === 'u' ? 4 : 8}}`).exec(body.slice(i + 1)))
    ) {
      code = Math.min(parseInt(m[0], 16), 0x10ffff);
      i += m[0].length;
    } else if (e === 'c' && i + 1 < body.length) {
      const c = body[++i] === '\\' && body[i + 1] === '\\' ? body[++i] : body[i];
      code = c.toUpperCase().charCodeAt(0) & 0x1f;
    } else out += `\\${e}`;
    if (code !== undefined) {
      if (code === 0) return out;
      out += String.fromCodePoint(code);
    }
  }
  return out;
}

/** Adjacent texts joined into one piece. */
function merge(pieces: Piece[]): Piece[] {
  const out: Piece[] = [];
  for (const p of pieces) {
    const last = out[out.length - 1];
    if (typeof p === 'string' && typeof last === 'string') out[out.length - 1] = last + p;
    else if (p !== '') out.push(p);
  }
  return out;
}
