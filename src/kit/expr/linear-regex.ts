import { QitosError, markErrorClass } from '../../core/index.js';

/**
 * A regular expression matcher that runs in time linear in the text (times the pattern's size), whatever the
 * pattern: `matches` in expressions uses it, because a backtracking engine (JavaScript's RegExp) takes exponential
 * time on patterns such as `^(a+)+$` and would freeze the process, deaf to signals, on one condition. It answers
 * only "does the pattern match somewhere in the text", which does not depend on greedy or lazy choices, so a set
 * of NFA states (Thompson's construction, simulated like RE2's Pike VM without captures) gives JavaScript's answer.
 *
 * Syntax is JavaScript's (the pattern is first compiled by RegExp, so invalid patterns fail with its message),
 * flags `i`, `m`, `s`, `u`, minus what needs backtracking: backreferences and lookaround are refused with an error
 * that says so. Case-insensitive matching folds case as JavaScript does for ASCII and the Basic Multilingual
 * Plane's simple mappings (`toUpperCase` of one character to one character).
 */

/** Raised for a pattern this matcher refuses (unsupported syntax, too large) or a match over its work limit. */
export class LinearRegexError extends QitosError {
  static {
    markErrorClass(this, 'LinearRegexError');
  }

  constructor(message: string) {
    super('expr', message);
    this.name = 'LinearRegexError';
  }
}

/** Limits of {@link compileLinearRegex}. */
export interface LinearRegexLimits {
  /** Most NFA instructions a pattern may compile to (counted repetitions are expanded): default 20,000. */
  maxProgram?: number;
  /** Most state steps one `test` may take (about text length x pattern size): default 50,000,000. */
  maxWork?: number;
}

type Pred = (c: number) => boolean;
type Assertion = 'bol' | 'eol' | 'wb' | 'nwb';
type Node =
  | { t: 'char'; m: Pred }
  | { t: 'cat'; items: Node[] }
  | { t: 'alt'; alts: Node[] }
  | { t: 'rep'; node: Node; min: number; max: number }
  | { t: 'assert'; k: Assertion };
type Inst =
  | { op: 'char'; m: Pred }
  | { op: 'split'; x: number; y: number }
  | { op: 'jmp'; x: number }
  | { op: 'assert'; k: Assertion }
  | { op: 'match' };

/** A compiled pattern: `test` says whether it matches somewhere in a text. */
export interface LinearRegex {
  readonly source: string;
  readonly flags: string;
  test(text: string): boolean;
}

const isLineTerminator = (c: number) => c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isWord = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || isDigit(c) || c === 0x5f;
const SPACES = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff,
]);
const isSpace = (c: number) => SPACES.has(c) || (c >= 0x2000 && c <= 0x200a);

/** JavaScript's Canonicalize for case-insensitive matching: the one-character upper case, unless it maps non-ASCII to ASCII. */
function canonicalize(c: number, unicode: boolean): number {
  if (c > 0xffff && !unicode) return c;
  const s = String.fromCodePoint(c);
  if (unicode) {
    // simple case folding, approximated by a lower case of one code point
    const l = s.toLowerCase();
    return [...l].length === 1 ? l.codePointAt(0)! : c;
  }
  const u = s.toUpperCase();
  if (u.length !== 1) return c;
  const cu = u.charCodeAt(0);
  return c >= 128 && cu < 128 ? c : cu;
}

/** One item of a character class: a code point range, or a predicate (`\d`, `\w`, `\s` and their negations). */
type ClassItem = { lo: number; hi: number } | Pred;

/** Groups may nest this deep (the parser recurses per group). */
const MAX_GROUP_DEPTH = 500;

class Parser {
  private pos = 0;
  private depth = 0;
  private readonly chars: number[];
  constructor(
    source: string,
    private readonly unicode: boolean,
    private readonly ignoreCase: boolean,
    private readonly dotAll: boolean,
  ) {
    this.chars = unicode ? [...source].map((ch) => ch.codePointAt(0)!) : Array.from(source, (ch) => ch.charCodeAt(0));
  }

  parse(): Node {
    const node = this.alternation();
    if (this.pos < this.chars.length) throw new LinearRegexError(`unexpected ")" at ${this.pos + 1}`);
    return node;
  }

  private peek(): number | undefined {
    return this.chars[this.pos];
  }
  private eat(c: string): boolean {
    if (this.chars[this.pos] === c.charCodeAt(0)) {
      this.pos++;
      return true;
    }
    return false;
  }

  private alternation(): Node {
    const alts = [this.sequence()];
    while (this.eat('|')) alts.push(this.sequence());
    return alts.length === 1 ? alts[0] : { t: 'alt', alts };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.pos < this.chars.length && this.peek() !== 0x7c && this.peek() !== 0x29) {
      const atom = this.atom();
      items.push(this.quantified(atom));
    }
    return { t: 'cat', items };
  }

  private quantified(atom: Node): Node {
    let min: number;
    let max: number;
    const c = this.peek();
    if (c === 0x2a) [min, max] = [0, Infinity];
    else if (c === 0x2b) [min, max] = [1, Infinity];
    else if (c === 0x3f) [min, max] = [0, 1];
    else if (c === 0x7b) {
      const rest = String.fromCodePoint(...this.chars.slice(this.pos, this.pos + 40));
      const m = /^\{(\d+)(,(\d*))?\}/.exec(rest);
      if (!m) return atom; // a literal "{" (RegExp accepted the pattern, so this is not the unicode mode)
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      this.pos += m[0].length - 1;
    } else return atom;
    this.pos++;
    this.eat('?'); // lazy or greedy: the same answer to "does it match"
    return { t: 'rep', node: atom, min, max };
  }

  private atom(): Node {
    const c = this.chars[this.pos++];
    switch (c) {
      case 0x5e: // ^
        return { t: 'assert', k: 'bol' };
      case 0x24: // $
        return { t: 'assert', k: 'eol' };
      case 0x2e: // .
        return { t: 'char', m: this.dotAll ? () => true : (x) => !isLineTerminator(x) };
      case 0x28: // (
        return this.group();
      case 0x5b: // [
        return this.charClass();
      case 0x5c: // backslash
        return this.escape();
      default:
        return this.literal(c);
    }
  }

  private group(): Node {
    if (++this.depth > MAX_GROUP_DEPTH) throw new LinearRegexError(`groups nest deeper than ${MAX_GROUP_DEPTH} levels`);
    if (this.eat('?')) {
      if (this.eat(':')) {
        /* non-capturing */
      } else if (this.peek() === 0x3c && this.chars[this.pos + 1] !== 0x3d && this.chars[this.pos + 1] !== 0x21) {
        // a named group: its name is only a label here
        while (this.pos < this.chars.length && this.chars[this.pos] !== 0x3e) this.pos++;
        this.pos++;
      } else
        throw new LinearRegexError(
          'lookahead and lookbehind ((?=, (?!, (?<=, (?<!) are not supported: they need backtracking',
        );
    }
    const inner = this.alternation();
    if (!this.eat(')')) throw new LinearRegexError('missing ")"');
    this.depth--;
    return inner;
  }

  private escape(): Node {
    const c = this.chars[this.pos++];
    if (c === 0x62) return { t: 'assert', k: 'wb' };
    if (c === 0x42) return { t: 'assert', k: 'nwb' };
    if (c >= 0x31 && c <= 0x39)
      throw new LinearRegexError(
        `backreferences (\\${String.fromCharCode(c)}) are not supported: they need backtracking`,
      );
    if (c === 0x6b && this.peek() === 0x3c)
      throw new LinearRegexError('named backreferences (\\k<name>) are not supported: they need backtracking');
    const item = this.escapeItem(c, false);
    return typeof item === 'function' ? { t: 'char', m: item } : this.literal(item.lo);
  }

  /** The character or class an escape stands for (`c` is the character after the backslash). */
  private escapeItem(c: number, inClass: boolean): ClassItem {
    const one = (x: number) => ({ lo: x, hi: x });
    switch (c) {
      case 0x64:
        return isDigit; // d
      case 0x44:
        return (x) => !isDigit(x); // D
      case 0x77:
        return isWord; // w
      case 0x57:
        return (x) => !isWord(x); // W
      case 0x73:
        return isSpace; // s
      case 0x53:
        return (x) => !isSpace(x); // S
      case 0x74:
        return one(0x09); // t
      case 0x6e:
        return one(0x0a); // n
      case 0x72:
        return one(0x0d); // r
      case 0x76:
        return one(0x0b); // v
      case 0x66:
        return one(0x0c); // f
      case 0x62:
        return one(0x08); // b (in a class: backspace)
      case 0x30: // 0
        if (isDigit(this.peek() ?? -1)) throw new LinearRegexError('octal escapes are not supported');
        return one(0);
      case 0x63: {
        // cX
        const l = this.peek();
        if (l !== undefined && ((l >= 0x41 && l <= 0x5a) || (l >= 0x61 && l <= 0x7a))) {
          this.pos++;
          return one(l % 32);
        }
        // "\c" not followed by a letter is a backslash, then a "c" read as the next character
        this.pos--;
        return one(0x5c);
      }
      case 0x78: {
        // xHH
        const hex = this.hex(2);
        return hex === undefined ? one(0x78) : one(hex);
      }
      case 0x75: {
        // uHHHH, u{...} (unicode), a surrogate pair \uD83D\uDE00 in the unicode mode
        if (this.unicode && this.peek() === 0x7b) {
          const end = this.chars.indexOf(0x7d, this.pos);
          const v = parseInt(String.fromCodePoint(...this.chars.slice(this.pos + 1, end)), 16);
          this.pos = end + 1;
          return one(v);
        }
        const hi = this.hex(4);
        if (hi === undefined) return one(0x75);
        if (
          this.unicode &&
          hi >= 0xd800 &&
          hi <= 0xdbff &&
          this.chars[this.pos] === 0x5c &&
          this.chars[this.pos + 1] === 0x75
        ) {
          const save = this.pos;
          this.pos += 2;
          const lo = this.hex(4);
          if (lo !== undefined && lo >= 0xdc00 && lo <= 0xdfff)
            return one((hi - 0xd800) * 0x400 + (lo - 0xdc00) + 0x10000);
          this.pos = save;
        }
        return one(hi);
      }
      case 0x70:
      case 0x50: // p{...}, P{...}
        if (this.unicode) throw new LinearRegexError('Unicode property escapes (\\p{...}) are not supported');
        return one(c);
      default:
        if (!inClass && c === 0x6b) return one(c);
        if (c === undefined) throw new LinearRegexError('\\ at end of pattern');
        return one(c); // an escaped syntax character, or (outside the unicode mode) any character as itself
    }
  }

  private hex(n: number): number | undefined {
    const s = String.fromCodePoint(...this.chars.slice(this.pos, this.pos + n));
    if (s.length !== n || !/^[0-9a-fA-F]+$/.test(s)) return undefined;
    this.pos += n;
    return parseInt(s, 16);
  }

  private charClass(): Node {
    const negate = this.eat('^');
    const items: ClassItem[] = [];
    while (this.pos < this.chars.length && this.peek() !== 0x5d) {
      const a = this.classAtom();
      if (this.peek() === 0x2d && this.chars[this.pos + 1] !== 0x5d && this.pos + 1 < this.chars.length) {
        this.pos++;
        const b = this.classAtom();
        // [\d-x] is a class and a "-" (outside the unicode mode, where it is an error RegExp already reported)
        if (typeof a === 'function' || typeof b === 'function') items.push(a, { lo: 0x2d, hi: 0x2d }, b);
        else items.push({ lo: a.lo, hi: b.lo });
      } else items.push(a);
    }
    if (!this.eat(']')) throw new LinearRegexError('missing "]"');
    const m = this.classPredicate(items);
    return { t: 'char', m: negate ? (x) => !m(x) : m };
  }

  private classAtom(): ClassItem {
    const c = this.chars[this.pos++];
    if (c !== 0x5c) return { lo: c, hi: c };
    const e = this.chars[this.pos++];
    if (e === 0x62) return { lo: 0x08, hi: 0x08 };
    if (e === 0x2d) return { lo: 0x2d, hi: 0x2d };
    if (e >= 0x31 && e <= 0x39) throw new LinearRegexError('octal escapes are not supported');
    return this.escapeItem(e, true);
  }

  private classPredicate(items: ClassItem[]): Pred {
    const preds = items.filter((i): i is Pred => typeof i === 'function');
    const ranges = items.filter((i): i is { lo: number; hi: number } => typeof i !== 'function');
    const inRanges = (x: number) => ranges.some((r) => x >= r.lo && x <= r.hi);
    if (!this.ignoreCase) return (x) => inRanges(x) || preds.some((p) => p(x));
    // case-insensitive: a character is in the class when one of the class's characters has its canonical form
    const canon = new Set<number>();
    let wide = false;
    for (const r of ranges) {
      if (r.hi - r.lo > 0x10000) wide = true;
      else for (let x = r.lo; x <= r.hi; x++) canon.add(canonicalize(x, this.unicode));
    }
    return (x) => canon.has(canonicalize(x, this.unicode)) || (wide && inRanges(x)) || preds.some((p) => p(x));
  }

  private literal(c: number): Node {
    if (!this.ignoreCase) return { t: 'char', m: (x) => x === c };
    const k = canonicalize(c, this.unicode);
    return { t: 'char', m: (x) => x === c || canonicalize(x, this.unicode) === k };
  }
}

/** Compiles the parsed pattern to instructions (Thompson's construction); counted repetitions are copied out. */
function compile(node: Node, maxProgram: number): Inst[] {
  const prog: Inst[] = [];
  const emit = (i: Inst) => {
    if (prog.length >= maxProgram)
      throw new LinearRegexError(
        `the pattern is too large (more than ${maxProgram} states once its repetition counts are expanded)`,
      );
    prog.push(i);
    return prog.length - 1;
  };
  const gen = (n: Node): void => {
    switch (n.t) {
      case 'char':
        emit({ op: 'char', m: n.m });
        return;
      case 'assert':
        emit({ op: 'assert', k: n.k });
        return;
      case 'cat':
        for (const i of n.items) gen(i);
        return;
      case 'alt': {
        const jumps: number[] = [];
        for (let a = 0; a < n.alts.length; a++) {
          if (a < n.alts.length - 1) {
            const split = emit({ op: 'split', x: 0, y: 0 });
            (prog[split] as { x: number }).x = prog.length;
            gen(n.alts[a]);
            jumps.push(emit({ op: 'jmp', x: 0 }));
            (prog[split] as { y: number }).y = prog.length;
          } else gen(n.alts[a]);
        }
        for (const j of jumps) (prog[j] as { x: number }).x = prog.length;
        return;
      }
      case 'rep': {
        for (let i = 0; i < n.min; i++) gen(n.node);
        if (n.max === Infinity) {
          const split = emit({ op: 'split', x: 0, y: 0 });
          (prog[split] as { x: number }).x = prog.length;
          gen(n.node);
          emit({ op: 'jmp', x: split });
          (prog[split] as { y: number }).y = prog.length;
        } else {
          const splits: number[] = [];
          for (let i = n.min; i < n.max; i++) {
            const split = emit({ op: 'split', x: 0, y: 0 });
            (prog[split] as { x: number }).x = prog.length;
            splits.push(split);
            gen(n.node);
          }
          for (const s of splits) (prog[s] as { y: number }).y = prog.length;
        }
        return;
      }
    }
  };
  gen(node);
  emit({ op: 'match' });
  return prog;
}

/**
 * Compiles `source` with `flags` (letters of `imsu`; `g` and `y` mean nothing to a yes/no match and are refused).
 * Throws the RegExp SyntaxError's message for an invalid pattern, and LinearRegexError for what this matcher does
 * not support or a pattern too large.
 */
export function compileLinearRegex(source: string, flags = '', limits: LinearRegexLimits = {}): LinearRegex {
  if (!/^[imsu]*$/.test(flags) || new Set(flags).size !== flags.length)
    throw new LinearRegexError(`flags are distinct letters of "imsu", got ${JSON.stringify(flags)}`);
  // RegExp's compiler checks the syntax (compiling is not where backtracking blows up; matching is)
  new RegExp(source, flags);
  const unicode = flags.includes('u');
  const multiline = flags.includes('m');
  const tree = new Parser(source, unicode, flags.includes('i'), flags.includes('s')).parse();
  const prog = compile(tree, limits.maxProgram ?? 20_000);
  const maxWork = limits.maxWork ?? 50_000_000;
  return {
    source,
    flags,
    test(text: string): boolean {
      const chars = unicode ? Int32Array.from(text, (ch) => ch.codePointAt(0)!) : undefined;
      const n = chars ? chars.length : text.length;
      const at = chars ? (i: number) => chars[i] : (i: number) => text.charCodeAt(i);
      const mark = new Int32Array(prog.length).fill(-1);
      let clist: number[] = [];
      let nlist: number[] = [];
      let work = 0;
      const stack: number[] = [];
      const holds = (k: Assertion, i: number): boolean => {
        switch (k) {
          case 'bol':
            return i === 0 || (multiline && isLineTerminator(at(i - 1)));
          case 'eol':
            return i === n || (multiline && isLineTerminator(at(i)));
          default: {
            const boundary = (i > 0 && isWord(at(i - 1))) !== (i < n && isWord(at(i)));
            return k === 'wb' ? boundary : !boundary;
          }
        }
      };
      // Adds `pc` and what it reaches without reading a character; true when that reaches the match.
      const add = (list: number[], pc: number, i: number, gen: number): boolean => {
        stack.push(pc);
        while (stack.length) {
          const p = stack.pop()!;
          if (mark[p] === gen) continue;
          mark[p] = gen;
          if (++work > maxWork)
            throw new LinearRegexError(
              `the match took more than ${maxWork} steps (the text is too long for this pattern)`,
            );
          const inst = prog[p];
          switch (inst.op) {
            case 'match':
              stack.length = 0;
              return true;
            case 'jmp':
              stack.push(inst.x);
              break;
            case 'split':
              stack.push(inst.y, inst.x);
              break;
            case 'assert':
              if (holds(inst.k, i)) stack.push(p + 1);
              break;
            case 'char':
              list.push(p);
          }
        }
        return false;
      };
      for (let i = 0; i <= n; i++) {
        // generation 2i: the states at position i (a new start every position: the match may begin anywhere)
        if (add(clist, 0, i, 2 * i)) return true;
        if (i === n) break;
        const c = at(i);
        for (const pc of clist) {
          const inst = prog[pc] as { op: 'char'; m: Pred };
          if (inst.m(c) && add(nlist, pc + 1, i + 1, 2 * (i + 1))) return true;
        }
        [clist, nlist] = [nlist, clist];
        nlist.length = 0;
      }
      return false;
    },
  };
}
