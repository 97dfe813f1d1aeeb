import { ExprError } from './expr-error.js';
import { EXPR_FUNCTIONS, type ExprFunction } from './expr-functions.js';
import type { ChainOp, ExprNode, MemberStep } from './expr-node.js';
import { asData, deepEqual, describeValue, isPlainObject, makeObject, ownField, type ExprValue } from './expr-value.js';
import { arityText } from './math-functions.js';
import { FORBIDDEN_FIELDS, parseExpr, type Expr, type ParseExprOptions } from './parse-expr.js';

/** Options of {@link evaluateExpr}: the parse limits (for a source string) and the helper functions. */
export interface EvaluateExprOptions extends ParseExprOptions {
  /** The functions an expression may call (default {@link EXPR_FUNCTIONS}). Spread EXPR_FUNCTIONS to add your own. */
  functions?: Readonly<Record<string, ExprFunction>>;
}

/** The scope an expression reads: top-level names mapped to data (an `undefined` value reads as null). */
export type ExprScope = Readonly<Record<string, unknown>>;

/** Marks "an optional step found nothing": the whole member chain is null. */
const SHORT = Symbol('short-circuit');

/**
 * Evaluates an expression (a source string, or an {@link Expr} from parseExpr to parse once and evaluate often)
 * over a scope of plain data. Reads only own fields of plain objects and items of lists: no prototype, getter or
 * function of the data is ever reached. Throws ExprError, and only ExprError, for anything wrong.
 */
export function evaluateExpr(expr: Expr | string, scope: ExprScope, options: EvaluateExprOptions = {}): ExprValue {
  const parsed = typeof expr === 'string' ? parseExpr(expr, options) : expr;
  if (!isPlainObject(scope)) throw new ExprError('the scope must be a plain object of names to values');
  const functions = options.functions ?? EXPR_FUNCTIONS;
  const value = new Evaluator(scope, functions).eval(parsed.root);
  if (typeof value === 'number' && !Number.isFinite(value))
    throw new ExprError(Number.isNaN(value) ? 'the result is not a number' : 'the result is infinite (overflow)');
  return value;
}

/** Evaluates an expression that must give true or false (a condition); anything else is an ExprError saying what it gave. */
export function evaluateCondition(expr: Expr | string, scope: ExprScope, options: EvaluateExprOptions = {}): boolean {
  const value = evaluateExpr(expr, scope, options);
  if (typeof value !== 'boolean')
    throw new ExprError(`the condition must be true or false, but it gave ${describeValue(value)}`);
  return value;
}

class Evaluator {
  constructor(
    private readonly scope: ExprScope,
    private readonly functions: Readonly<Record<string, ExprFunction>>,
  ) {}

  eval(n: ExprNode): ExprValue {
    switch (n.kind) {
      case 'literal':
        return n.value;
      case 'name':
        return this.name(n.name, n.pos);
      case 'list':
        return n.items.map((i) => this.eval(i));
      case 'object':
        return makeObject(n.entries.map((e) => [e.key, this.eval(e.value)] as const));
      case 'unary': {
        const v = this.eval(n.operand);
        if (n.op === '!') return !this.bool(v, '!', n.pos);
        const x = this.num(v, n.op, n.pos);
        return n.op === '-' ? -x : x;
      }
      case 'binary':
        return this.binary(n);
      case 'chain':
        return this.chain(n);
      case 'member': {
        const v = this.member(n.object, n.steps);
        return v === SHORT ? null : v;
      }
      case 'call':
        return this.call(n.name, n.args, n.pos);
      case 'conditional':
        return this.bool(this.eval(n.test), '?', n.pos) ? this.eval(n.then) : this.eval(n.otherwise);
    }
  }

  private name(name: string, pos: number): ExprValue {
    if (Object.hasOwn(this.scope, name)) {
      const v = this.scope[name];
      return v === undefined ? null : asData(v, `"${name}"`, pos + 1);
    }
    if (Object.hasOwn(this.functions, name))
      throw err(`function "${name}" at column ${pos + 1} needs arguments in parentheses, e.g. ${name}(2)`, pos);
    const known = Object.keys(this.scope);
    const list = known.length
      ? `known names: ${known.slice(0, 12).join(', ')}${known.length > 12 ? ', ...' : ''}`
      : 'the scope is empty';
    throw err(`unknown name "${name}" at column ${pos + 1}; ${list}`, pos);
  }

  private binary(n: ExprNode & { kind: 'binary' }): ExprValue {
    const a = this.eval(n.left);
    const b = this.eval(n.right);
    switch (n.op) {
      case '==':
        return deepEqual(a, b);
      case '!=':
        return !deepEqual(a, b);
      case '^':
        return this.finite(this.num(a, '^', n.pos) ** this.num(b, '^', n.pos), '"^"', n.pos);
      case 'in':
        if (Array.isArray(b)) return b.some((item) => deepEqual(asData(item, 'a list item'), a));
        if (typeof b === 'string' && typeof a === 'string') return b.includes(a);
        if (isPlainObject(b) && typeof a === 'string') return ownField(b, a) !== undefined;
        throw err(
          `"in" at column ${n.pos + 1} needs a list, a string in a string, or a key in an object; ` +
            `got ${describeValue(a)} in ${describeValue(b)}`,
          n.pos,
        );
      default: {
        if (!((typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string'))) {
          throw err(
            `"${n.op}" at column ${n.pos + 1} compares two numbers or two strings, got ${describeValue(a)} and ${describeValue(b)}`,
            n.pos,
          );
        }
        return n.op === '<' ? a < b : n.op === '<=' ? a <= b : n.op === '>' ? a > b : a >= b;
      }
    }
  }

  private chain(n: ExprNode & { kind: 'chain' }): ExprValue {
    let v = this.eval(n.first);
    for (const { op, operand, pos } of n.rest) {
      if (op === '&&' || op === '||') {
        const left = this.bool(v, op, pos);
        if (op === '&&' ? !left : left) return left;
        v = this.bool(this.eval(operand), op, pos);
      } else if (op === '??') {
        if (v !== null) return v;
        v = this.eval(operand);
      } else {
        v = this.arith(op, v, this.eval(operand), pos);
      }
    }
    return v;
  }

  private arith(op: Exclude<ChainOp, '&&' | '||' | '??'>, a: ExprValue, b: ExprValue, pos: number): ExprValue {
    if (op === '+') {
      if (typeof a === 'string' && typeof b === 'string') return a + b;
      if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
      if (typeof a !== 'number' || typeof b !== 'number')
        throw err(
          `"+" at column ${pos + 1} adds two numbers, two strings or two lists, got ${describeValue(a)} and ${describeValue(b)}`,
          pos,
        );
      return this.finite(a + b, '"+"', pos);
    }
    const x = this.num(a, op, pos);
    const y = this.num(b, op, pos);
    if ((op === '/' || op === '%') && y === 0) throw err(`division by zero at column ${pos + 1}`, pos);
    return this.finite(op === '-' ? x - y : op === '*' ? x * y : op === '/' ? x / y : x % y, `"${op}"`, pos);
  }

  private member(objectNode: ExprNode, steps: readonly MemberStep[]): ExprValue | typeof SHORT {
    let cur = this.eval(objectNode);
    for (const step of steps) {
      const key = step.kind === 'field' ? step.name : this.eval(step.index);
      if (cur === null) {
        if (step.optional) return SHORT;
        throw err(`cannot read ${where(step, key)}: the value is null (use ?. to read null as null)`, step.pos);
      }
      const next = this.read(cur, key, step);
      if (next === undefined) {
        if (step.optional) return SHORT;
        throw err(
          `${describeValue(cur)} has ` +
            `no ${where(step, key)}${step.kind === 'field' && isPlainObject(cur) ? ` (its fields: ${fieldList(cur)})` : ''}`,
          step.pos,
        );
      }
      // Data passes as it is; anything else is refused by asData, whose message is built only then.
      const plain =
        next === null ||
        typeof next === 'boolean' ||
        typeof next === 'number' ||
        typeof next === 'string' ||
        Array.isArray(next) ||
        isPlainObject(next);
      cur = plain ? (next as ExprValue) : asData(next, where(step, key), step.pos + 1);
    }
    return cur;
  }

  /** One step into a value; undefined when there is nothing there. */
  private read(cur: ExprValue, key: ExprValue, step: MemberStep): unknown {
    if (typeof key === 'string' && FORBIDDEN_FIELDS.has(key))
      throw err(`${where(step, key)} is not allowed: expressions do not reach prototypes`, step.pos);
    if (Array.isArray(cur) || typeof cur === 'string') {
      if (key === 'length' && step.kind === 'field') return cur.length;
      if (typeof key !== 'number' || !Number.isInteger(key))
        throw err(`${describeValue(cur)} is read by an integer index, not ${where(step, key)}`, step.pos);
      const i = key < 0 ? cur.length + key : key;
      return i >= 0 && i < cur.length ? cur[i] : undefined;
    }
    if (isPlainObject(cur)) {
      if (typeof key !== 'string' && !(typeof key === 'number' && Number.isInteger(key)))
        throw err(`an object is read by a string key, not ${where(step, key)}`, step.pos);
      return ownField(cur, String(key));
    }
    throw err(`cannot read ${where(step, key)} of ${describeValue(cur)}`, step.pos);
  }

  private call(name: string, argNodes: readonly ExprNode[], pos: number): ExprValue {
    const f = Object.hasOwn(this.functions, name) ? this.functions[name] : undefined;
    if (!f) {
      const known = Object.keys(this.functions);
      throw err(`unknown function "${name}" at column ${pos + 1}; known: ${known.join(', ')}`, pos);
    }
    const args = argNodes.map((a) => this.eval(a));
    if (args.length < f.arity[0] || args.length > f.arity[1])
      throw err(`${name} ${arityText(f.arity)}, got ${args.length}`, pos);
    let out: ExprValue;
    try {
      out = f.fn(args);
    } catch (e) {
      if (ExprError.isInstance(e))
        throw e.column === undefined ? err(`${e.message} (${name}() at column ${pos + 1})`, pos) : e;
      throw err(`${name}() at column ${pos + 1} failed: ${e instanceof Error ? e.message : String(e)}`, pos);
    }
    return typeof out === 'number' ? this.finite(out, `${name}()`, pos) : out;
  }

  private bool(v: ExprValue, op: string, pos: number): boolean {
    if (typeof v !== 'boolean')
      throw err(`"${op}" at column ${pos + 1} needs true or false, got ${describeValue(v)}`, pos);
    return v;
  }

  private num(v: ExprValue, op: string, pos: number): number {
    if (typeof v !== 'number') throw err(`"${op}" at column ${pos + 1} needs a number, got ${describeValue(v)}`, pos);
    return v;
  }

  /** NaN stops the evaluation where it appears; infinities may pass through (`1 / (10 ^ 400)` is 0). */
  private finite(x: number, what: string, pos: number): number {
    if (Number.isNaN(x))
      throw err(`the result of ${what} at column ${pos + 1} is not a number (e.g. sqrt of a negative number)`, pos);
    return x;
  }
}

function err(message: string, pos: number): ExprError {
  return new ExprError(message, pos + 1);
}

/** A member step as error messages name it: `field "x" at column 7` or `[2] at column 9` (built only for errors). */
function where(step: MemberStep, key: ExprValue): string {
  return step.kind === 'field'
    ? `field "${step.name}" at column ${step.pos + 1}`
    : `[${describeKey(key)}] at column ${step.pos + 1}`;
}

function describeKey(key: ExprValue): string {
  return typeof key === 'string' ? JSON.stringify(key) : typeof key === 'number' ? String(key) : describeValue(key);
}

function fieldList(o: Record<string, unknown>): string {
  const keys = Object.keys(o);
  return keys.length ? `${keys.slice(0, 12).join(', ')}${keys.length > 12 ? ', ...' : ''}` : 'none';
}
