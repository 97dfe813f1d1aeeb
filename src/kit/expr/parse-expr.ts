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
  const maxDepth = options.maxDepth ?? 200;
  if (typeof source !== 'string') throw new ExprError(`the expression must be a string, got ${source === null ? 'null' : typeof source}`);
  if (!source.trim()) throw new ExprError('the expression is empty');
  if (source.length > maxLength) throw new ExprError(`the expression is ${source.length} characters long; the limit is ${maxLength}`);
  const tokens = tokenizeExpr(source);
  const names = new Set<string>();
  const functions = new Set<string>();
  let k = 0;
  let depth = 0;

  const peek = (): Token => tokens[k];
  const isOp = (v: string): boolean => {
    const t = tokens[k];
    return t.kind === 'op' && t.value === v;
  };
  const describe = (t: Token): string => {
    if (t.kind === 'end') return 'the end of the expression';
    if (t.kind === 'str') {
      const s = JSON.stringify(t.value);
      return `the string ${s.length > 40 ? `${s.slice(0, 39)}…"` : s} at column ${t.pos + 1}`;
    }
    return `"${t.kind === 'num' ? t.text : t.value}" at column ${t.pos + 1}`;
  };
  function fail(message: string, pos: number): never {
    throw new ExprError(message, pos + 1);
  }
  const unexpected = (t: Token): never =>
    fail(t.kind === 'end' ? 'unexpected end of the expression: an operand is missing' : `unexpected ${describe(t)}`, t.pos);
  const expect = (v: string): Token => {
    const t = peek();
    if (!isOp(v)) fail(`expected "${v}" but found ${describe(t)}`, t.pos);
    k++;
    return t;
  };
  const enter = (pos: number): void => {
    if (++depth > maxDepth) fail(`the expression nests deeper than ${maxDepth} levels`, pos);
  };

  const expression = (): ExprNode => {
    enter(peek().pos);
    const node = conditional();
    depth--;
    return node;
  };
  const conditional = (): ExprNode => {
    const test = nullish();
    if (!isOp('?')) return test;
    const pos = tokens[k++].pos;
    const then = expression();
    expect(':');
    enter(peek().pos);
    const otherwise = conditional();
    depth--;
    return { kind: 'conditional', test, then, otherwise, pos };
  };
  const chain = (ops: readonly ChainOp[], next: () => ExprNode) => (): ExprNode => {
    const first = next();
    const rest: Array<{ op: ChainOp; operand: ExprNode; pos: number }> = [];
    for (;;) {
      const t = peek();
      if (t.kind !== 'op' || !ops.includes(t.value as ChainOp)) break;
      k++;
      rest.push({ op: t.value as ChainOp, operand: next(), pos: t.pos });
    }
    return rest.length ? { kind: 'chain', first, rest, pos: rest[0].pos } : first;
  };
  const comparison = (): ExprNode => {
    const left = additive();
    const t = peek();
    const op = t.kind === 'op' || (t.kind === 'name' && t.value === 'in') ? t.value : '';
    if (!COMPARISONS.has(op)) return left;
    k++;
    const right = additive();
    const again = peek();
    if ((again.kind === 'op' || again.kind === 'name') && COMPARISONS.has(again.value)) {
      fail(`comparisons do not chain: "${again.value}" at column ${again.pos + 1} follows "${op}"; write a < b && b < c, or add parentheses`, again.pos);
    }
    return { kind: 'binary', op: op as BinaryOp, left, right, pos: t.pos };
  };
  const unary = (): ExprNode => {
    const t = peek();
    if (t.kind === 'op' && (t.value === '-' || t.value === '+' || t.value === '!')) {
      k++;
      enter(t.pos);
      const operand = unary();
      depth--;
      return { kind: 'unary', op: t.value, operand, pos: t.pos };
    }
    return power();
  };
  const power = (): ExprNode => {
    const base = postfix();
    const t = peek();
    if (t.kind === 'op' && (t.value === '^' || t.value === '**')) {
      k++;
      enter(t.pos);
      const exponent = unary();
      depth--;
      return { kind: 'binary', op: '^', left: base, right: exponent, pos: t.pos };
    }
    return base;
  };
  const postfix = (): ExprNode => {
    const object = primary();
    const steps: MemberStep[] = [];
    for (;;) {
      const t = peek();
      if (t.kind !== 'op') break;
      if (t.value === '.' || t.value === '?.') {
        k++;
        if (t.value === '?.' && isOp('[')) {
          k++;
          steps.push({ kind: 'index', index: expression(), optional: true, pos: t.pos });
          expect(']');
          continue;
        }
        const n = peek();
        if (n.kind !== 'name') fail(`expected a field name after "${t.value}" but found ${describe(n)}`, n.pos);
        if (FORBIDDEN_FIELDS.has(n.value)) fail(`field "${n.value}" at column ${n.pos + 1} is not allowed: expressions do not reach prototypes`, n.pos);
        k++;
        if (isOp('(')) fail(`cannot call "${n.value}" at column ${n.pos + 1} as a method: helpers are functions, e.g. ${n.value}(value, ...)`, n.pos);
        steps.push({ kind: 'field', name: n.value, optional: t.value === '?.', pos: n.pos });
      } else if (t.value === '[') {
        k++;
        steps.push({ kind: 'index', index: expression(), optional: false, pos: t.pos });
        expect(']');
      } else if (t.value === '(') {
        fail(`only helper functions can be called, by name: "(" at column ${t.pos + 1} follows a value`, t.pos);
      } else break;
    }
    return steps.length ? { kind: 'member', object, steps, pos: object.pos } : object;
  };
  const list = <T>(close: string, item: () => T): T[] => {
    const items: T[] = [];
    if (isOp(close)) {
      k++;
      return items;
    }
    for (;;) {
      items.push(item());
      if (isOp(',')) {
        k++;
        if (isOp(close)) break; // a trailing comma
        continue;
      }
      break;
    }
    expect(close);
    return items;
  };
  const primary = (): ExprNode => {
    const t = peek();
    switch (t.kind) {
      case 'num':
        k++;
        return { kind: 'literal', value: t.value, pos: t.pos };
      case 'str':
        k++;
        return { kind: 'literal', value: t.value, pos: t.pos };
      case 'name': {
        if (Object.hasOwn(KEYWORDS, t.value)) {
          k++;
          return { kind: 'literal', value: KEYWORDS[t.value], pos: t.pos };
        }
        if (t.value === 'in') return unexpected(t);
        k++;
        if (isOp('(')) {
          k++;
          enter(t.pos);
          const args = list(')', expression);
          depth--;
          functions.add(t.value);
          return { kind: 'call', name: t.value, args, pos: t.pos };
        }
        names.add(t.value);
        return { kind: 'name', name: t.value, pos: t.pos };
      }
      case 'op':
        if (t.value === '(') {
          k++;
          const inner = expression();
          expect(')');
          return inner;
        }
        if (t.value === '[') {
          k++;
          enter(t.pos);
          const items = list(']', expression);
          depth--;
          return foldLiterals({ kind: 'list', items, pos: t.pos });
        }
        if (t.value === '{') {
          k++;
          enter(t.pos);
          const entries = list('}', entry);
          depth--;
          return foldLiterals({ kind: 'object', entries, pos: t.pos });
        }
        return unexpected(t);
      default:
        return unexpected(t);
    }
  };
  const entry = (): { key: string; value: ExprNode } => {
    const t = peek();
    if (t.kind !== 'name' && t.kind !== 'str') fail(`expected a key (a name or a string) but found ${describe(t)}`, t.pos);
    k++;
    expect(':');
    return { key: (t as { value: string }).value, value: expression() };
  };

  const multiplicative = chain(['*', '/', '%'], unary);
  const additive = chain(['+', '-'], multiplicative);
  const and = chain(['&&'], comparison);
  const or = chain(['||'], and);
  const nullish = chain(['??'], or);

  const root = expression();
  if (peek().kind !== 'end') unexpected(peek());
  return Object.freeze({ source, root, names: Object.freeze([...names]), functions: Object.freeze([...functions]) });
}

/**
 * A list or object literal made only of literals becomes one frozen literal, built once at parse time (`[1, 2]`
 * in a condition evaluated every step costs nothing, and no caller can change it for the next evaluation).
 */
function foldLiterals(node: ExprNode & { kind: 'list' | 'object' }): ExprNode {
  const value = (n: ExprNode) => (n as { value: ExprValue }).value;
  if (node.kind === 'list' && node.items.every((i) => i.kind === 'literal')) {
    return { kind: 'literal', value: Object.freeze(node.items.map(value)), pos: node.pos };
  }
  if (node.kind === 'object' && node.entries.every((e) => e.value.kind === 'literal')) {
    return { kind: 'literal', value: Object.freeze(makeObject(node.entries.map((e) => [e.key, value(e.value)]))), pos: node.pos };
  }
  return node;
}
