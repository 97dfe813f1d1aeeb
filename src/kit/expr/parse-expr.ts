import { ExprError } from './expr-error.js';
import type { BinaryOp, ChainOp, ExprNode, MemberStep } from './expr-node.js';
import { makeObject, type ExprValue } from './expr-value.js';
import { tokenizeExpr, type Token } from './tokenize-expr.js';

/** A parsed expression: its source, syntax tree, and the scope names and helper functions it uses. */
export interface Expr {
  readonly source: string;
  readonly root: ExprNode;
  /** Top-level names the expression reads from its scope (`state`, `answer`...), in order of first use. */
  readonly names: readonly string[];
  /** Helper functions it calls, in order of first use. */
  readonly functions: readonly string[];
}

/** Limits of {@link parseExpr}. */
export interface ParseExprOptions {
  /** Longest source accepted, in characters (default 10 000). */
  maxLength?: number;
  /** Deepest nesting of parentheses, lists, calls, unary operators and conditionals (default 200). */
  maxDepth?: number;
}

/** Field names never read, whatever the data: they are how JavaScript reaches prototypes. */
export const FORBIDDEN_FIELDS: ReadonlySet<string> = new Set(['__proto__', 'prototype', 'constructor']);

const KEYWORDS: Record<string, ExprValue> = { true: true, false: false, null: null };
const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=', 'in']);

/**
 * Parses an expression (grammar in docs/expressions.md) into a syntax tree, or throws ExprError naming the
 * problem and its column. Parsing never runs anything; {@link evaluateExpr} does.
 */
export function parseExpr(source: string, options: ParseExprOptions = {}): Expr {
  const maxLength = options.maxLength ?? 10_000;
  if (typeof source !== 'string')
    throw new ExprError(`the expression must be a string, got ${source === null ? 'null' : typeof source}`);
  if (!source.trim()) throw new ExprError('the expression is empty');
  if (source.length > maxLength)
    throw new ExprError(`the expression is ${source.length} characters long; the limit is ${maxLength}`);
  return parseTokens(tokenizeExpr(source), source, options.maxDepth ?? 200);
}

/** Parses the tokens of `source` (for a caller that has looked at them first, as `calculate` does). */
export function parseTokens(tokens: readonly Token[], source: string, maxDepth = 200): Expr {
  const p = new Parser(tokens, maxDepth);
  const root = p.expression();
  if (p.peek().kind !== 'end') p.unexpected(p.peek());
  return Object.freeze({
    source,
    root,
    names: Object.freeze([...p.names]),
    functions: Object.freeze([...p.functions]),
  });
}

const MULTIPLICATIVE: readonly ChainOp[] = ['*', '/', '%'];
const ADDITIVE: readonly ChainOp[] = ['+', '-'];

/** Recursive descent over the tokens, one method per precedence level (lowest first). */
class Parser {
  readonly names = new Set<string>();
  readonly functions = new Set<string>();
  private k = 0;
  private depth = 0;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly maxDepth: number,
  ) {}

  peek(): Token {
    return this.tokens[this.k];
  }

  private isOp(v: string): boolean {
    const t = this.tokens[this.k];
    return t.kind === 'op' && t.value === v;
  }

  private describe(t: Token): string {
    if (t.kind === 'end') return 'the end of the expression';
    if (t.kind === 'str') {
      const s = JSON.stringify(t.value);
      return `the string ${s.length > 40 ? `${s.slice(0, 39)}…"` : s} at column ${t.pos + 1}`;
    }
    return `"${t.kind === 'num' ? t.text : t.value}" at column ${t.pos + 1}`;
  }

  private fail(message: string, pos: number): never {
    throw new ExprError(message, pos + 1);
  }

  unexpected(t: Token): never {
    return this.fail(
      t.kind === 'end' ? 'unexpected end of the expression: an operand is missing' : `unexpected ${this.describe(t)}`,
      t.pos,
    );
  }

  private expect(v: string): void {
    const t = this.peek();
    if (!this.isOp(v)) this.fail(`expected "${v}" but found ${this.describe(t)}`, t.pos);
    this.k++;
  }

  private enter(pos: number): void {
    if (++this.depth > this.maxDepth) this.fail(`the expression nests deeper than ${this.maxDepth} levels`, pos);
  }

  expression(): ExprNode {
    this.enter(this.peek().pos);
    const node = this.conditional();
    this.depth--;
    return node;
  }

  private conditional(): ExprNode {
    const test = this.chain(NULLISH);
    if (!this.isOp('?')) return test;
    const pos = this.tokens[this.k++].pos;
    const then = this.expression();
    this.expect(':');
    this.enter(this.peek().pos);
    const otherwise = this.conditional();
    this.depth--;
    return { kind: 'conditional', test, then, otherwise, pos };
  }

  /** A left-to-right chain of one precedence level: `??`, `||`, `&&` (over comparisons), `+ -`, `* / %` (over unary). */
  private chain(level: ChainLevel): ExprNode {
    const first = this.operand(level);
    let rest: Array<{ op: ChainOp; operand: ExprNode; pos: number }> | undefined; // made only when an operator follows
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'op' || !level.ops.includes(t.value as ChainOp)) break;
      this.k++;
      (rest ??= []).push({ op: t.value as ChainOp, operand: this.operand(level), pos: t.pos });
    }
    return rest ? { kind: 'chain', first, rest, pos: rest[0].pos } : first;
  }

  private operand(level: ChainLevel): ExprNode {
    return level.next === 'comparison'
      ? this.comparison()
      : level.next === 'unary'
        ? this.unary()
        : this.chain(level.next);
  }

  private comparison(): ExprNode {
    const left = this.chain(ADD);
    const t = this.peek();
    const op = t.kind === 'op' || (t.kind === 'name' && t.value === 'in') ? t.value : '';
    if (!COMPARISONS.has(op)) return left;
    this.k++;
    const right = this.chain(ADD);
    const again = this.peek();
    if ((again.kind === 'op' || again.kind === 'name') && COMPARISONS.has(again.value)) {
      this.fail(
        `comparisons do not chain: "${again.value}" at column ${again.pos + 1} follows "${op}"; write a < b && b < c, or add parentheses`,
        again.pos,
      );
    }
    return { kind: 'binary', op: op as BinaryOp, left, right, pos: t.pos };
  }

  private unary(): ExprNode {
    const t = this.peek();
    if (t.kind === 'op' && (t.value === '-' || t.value === '+' || t.value === '!')) {
      this.k++;
      this.enter(t.pos);
      const operand = this.unary();
      this.depth--;
      return { kind: 'unary', op: t.value, operand, pos: t.pos };
    }
    return this.power();
  }

  private power(): ExprNode {
    const base = this.postfix();
    const t = this.peek();
    if (t.kind === 'op' && (t.value === '^' || t.value === '**')) {
      this.k++;
      this.enter(t.pos);
      const exponent = this.unary();
      this.depth--;
      return { kind: 'binary', op: '^', left: base, right: exponent, pos: t.pos };
    }
    return base;
  }

  private postfix(): ExprNode {
    const object = this.primary();
    const steps: MemberStep[] = [];
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'op') break;
      if (t.value === '.' || t.value === '?.') {
        this.k++;
        if (t.value === '?.' && this.isOp('[')) {
          this.k++;
          steps.push({ kind: 'index', index: this.expression(), optional: true, pos: t.pos });
          this.expect(']');
          continue;
        }
        const n = this.peek();
        if (n.kind !== 'name')
          this.fail(`expected a field name after "${t.value}" but found ${this.describe(n)}`, n.pos);
        if (FORBIDDEN_FIELDS.has(n.value))
          this.fail(
            `field "${n.value}" at column ${n.pos + 1} is not allowed: expressions do not reach prototypes`,
            n.pos,
          );
        this.k++;
        if (this.isOp('('))
          this.fail(
            `cannot call "${n.value}" at column ${n.pos + 1} as a method: helpers are functions, e.g. ${n.value}(value, ...)`,
            n.pos,
          );
        steps.push({ kind: 'field', name: n.value, optional: t.value === '?.', pos: n.pos });
      } else if (t.value === '[') {
        this.k++;
        steps.push({ kind: 'index', index: this.expression(), optional: false, pos: t.pos });
        this.expect(']');
      } else if (t.value === '(') {
        this.fail(`only helper functions can be called, by name: "(" at column ${t.pos + 1} follows a value`, t.pos);
      } else break;
    }
    return steps.length ? { kind: 'member', object, steps, pos: object.pos } : object;
  }

  /** Items up to `close`, separated by commas (a trailing comma allowed): expressions, or `key: value` entries. */
  private list<T extends 'expression' | 'entry'>(
    close: string,
    what: T,
  ): Array<T extends 'entry' ? { key: string; value: ExprNode } : ExprNode> {
    type Item = T extends 'entry' ? { key: string; value: ExprNode } : ExprNode;
    const items: Item[] = [];
    if (this.isOp(close)) {
      this.k++;
      return items;
    }
    for (;;) {
      items.push((what === 'entry' ? this.entry() : this.expression()) as Item);
      if (!this.isOp(',')) break;
      this.k++;
      if (this.isOp(close)) break; // a trailing comma
    }
    this.expect(close);
    return items;
  }

  private primary(): ExprNode {
    const t = this.peek();
    switch (t.kind) {
      case 'num':
      case 'str':
        this.k++;
        return { kind: 'literal', value: t.value, pos: t.pos };
      case 'name': {
        if (Object.hasOwn(KEYWORDS, t.value)) {
          this.k++;
          return { kind: 'literal', value: KEYWORDS[t.value], pos: t.pos };
        }
        if (t.value === 'in') return this.unexpected(t);
        this.k++;
        if (this.isOp('(')) {
          this.k++;
          this.enter(t.pos);
          const args = this.list(')', 'expression');
          this.depth--;
          this.functions.add(t.value);
          return { kind: 'call', name: t.value, args, pos: t.pos };
        }
        this.names.add(t.value);
        return { kind: 'name', name: t.value, pos: t.pos };
      }
      case 'op':
        if (t.value === '(') {
          this.k++;
          const inner = this.expression();
          this.expect(')');
          return inner;
        }
        if (t.value === '[' || t.value === '{') {
          this.k++;
          this.enter(t.pos);
          const node: ExprNode =
            t.value === '['
              ? { kind: 'list', items: this.list(']', 'expression'), pos: t.pos }
              : { kind: 'object', entries: this.list('}', 'entry'), pos: t.pos };
          this.depth--;
          return foldLiterals(node);
        }
        return this.unexpected(t);
      default:
        return this.unexpected(t);
    }
  }

  private entry(): { key: string; value: ExprNode } {
    const t = this.peek();
    if (t.kind !== 'name' && t.kind !== 'str')
      this.fail(`expected a key (a name or a string) but found ${this.describe(t)}`, t.pos);
    this.k++;
    this.expect(':');
    return { key: t.value, value: this.expression() };
  }
}

/** One level of the chain grammar: its operators and what its operands are. */
interface ChainLevel {
  ops: readonly ChainOp[];
  next: ChainLevel | 'comparison' | 'unary';
}
const MUL: ChainLevel = { ops: MULTIPLICATIVE, next: 'unary' };
const ADD: ChainLevel = { ops: ADDITIVE, next: MUL };
const AND: ChainLevel = { ops: ['&&'], next: 'comparison' };
const OR: ChainLevel = { ops: ['||'], next: AND };
const NULLISH: ChainLevel = { ops: ['??'], next: OR };

/**
 * A list or object literal made only of literals becomes one frozen literal, built once at parse time (`[1, 2]`
 * in a condition evaluated every step costs nothing, and no caller can change it for the next evaluation).
 */
function foldLiterals(node: ExprNode): ExprNode {
  const value = (n: ExprNode) => (n as { value: ExprValue }).value;
  if (node.kind === 'list' && node.items.every((i) => i.kind === 'literal')) {
    return { kind: 'literal', value: Object.freeze(node.items.map(value)), pos: node.pos };
  }
  if (node.kind === 'object' && node.entries.every((e) => e.value.kind === 'literal')) {
    return {
      kind: 'literal',
      value: Object.freeze(makeObject(node.entries.map((e) => [e.key, value(e.value)]))),
      pos: node.pos,
    };
  }
  return node;
}
