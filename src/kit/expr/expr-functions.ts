import { ExprError } from './expr-error.js';
import { describeValue, isPlainObject, kindOf, deepEqual, asData, type ExprValue } from './expr-value.js';
import { formatValue } from './format-value.js';
import { MATH_FUNCTIONS } from './math-functions.js';
import { LinearRegexError, compileLinearRegex, type LinearRegex } from './linear-regex.js';

/** A helper function callable from an expression: its arity ([min, max]) and implementation. */
export interface ExprFunction {
  arity: readonly [number, number];
  /** Throws ExprError (without a column: the evaluator adds the call's) when an argument is of the wrong kind. */
  fn(args: readonly ExprValue[]): ExprValue;
}

type List = readonly ExprValue[];

const isList = (v: ExprValue): v is List => Array.isArray(v);
const bad = (name: string, want: string, got: ExprValue) =>
  new ExprError(`${name} needs ${want}, got ${describeValue(got)}`);

function str(name: string, v: ExprValue): string {
  if (typeof v !== 'string') throw bad(name, 'a string', v);
  return v;
}

function num(name: string, v: ExprValue): number {
  if (typeof v !== 'number') throw bad(name, 'numbers', v);
  return v;
}

function listOrString(name: string, v: ExprValue): string | List {
  if (typeof v !== 'string' && !isList(v)) throw bad(name, 'a string or a list', v);
  return v;
}

/** The numbers of a variadic call: the arguments, or the items of a single list argument (`max(scores)`). */
function numbers(name: string, args: readonly ExprValue[]): number[] {
  const items = args.length === 1 && isList(args[0]) ? args[0] : args;
  return items.map((v) => num(name, asData(v, `an item given to ${name}`)));
}

const VARIADIC_OVER_LISTS = new Set(['min', 'max', 'hypot']);

/** Math helpers: the `calculate` functions, checked for numbers; min, max and hypot also take one list. */
export const EXPR_MATH_FUNCTIONS: Readonly<Record<string, ExprFunction>> = Object.fromEntries(
  Object.entries(MATH_FUNCTIONS).map(([name, f]) => [
    name,
    {
      arity: f.arity,
      fn: (args: readonly ExprValue[]) => {
        const xs = VARIADIC_OVER_LISTS.has(name) ? numbers(name, args) : args.map((a) => num(name, a));
        if (xs.length === 0) throw new ExprError(`${name} needs at least one number, got an empty list`);
        return f.fn(...xs);
      },
    } satisfies ExprFunction,
  ]),
);

/**
 * The helpers every expression may call (unless the caller passes its own set). Strings and lists:
 * `len`, `contains`, `startsWith`, `endsWith`, `matches`, `lower`, `upper`, `trim`, `split`, `join`, `slice`;
 * data: `keys`, `has`, `type`, `number`, `string`, `sum`; and the math functions (`abs`, `round`, `min`, `max`,
 * `sqrt`, ...). Documented with examples in docs/expressions.md.
 */
export const EXPR_FUNCTIONS: Readonly<Record<string, ExprFunction>> = Object.freeze({
  ...EXPR_MATH_FUNCTIONS,
  len: {
    arity: [1, 1],
    fn: ([v]) => {
      if (typeof v === 'string' || isList(v)) return v.length;
      if (isPlainObject(v)) return Object.keys(v).length;
      throw bad('len', 'a string, a list or an object', v);
    },
  },
  contains: {
    arity: [2, 2],
    fn: ([hay, needle]) => {
      const h = listOrString('contains', hay);
      if (typeof h === 'string') return h.includes(str('contains (looking in a string)', needle));
      return h.some((item) => deepEqual(asData(item, 'a list item'), needle));
    },
  },
  startsWith: { arity: [2, 2], fn: ([s, p]) => str('startsWith', s).startsWith(str('startsWith', p)) },
  endsWith: { arity: [2, 2], fn: ([s, p]) => str('endsWith', s).endsWith(str('endsWith', p)) },
  matches: {
    arity: [2, 3],
    fn: ([s, pattern, flags]) => {
      const text = str('matches', s);
      const f = flags === undefined ? '' : str('matches (flags)', flags);
      if (!/^[imsu]*$/.test(f)) throw new ExprError(`matches: flags are letters of "imsu", got ${JSON.stringify(f)}`);
      let re: LinearRegex;
      try {
        re = compileLinearRegex(str('matches (pattern)', pattern), f);
      } catch (err) {
        if (ExprError.isInstance(err)) throw err;
        const what = LinearRegexError.isInstance(err) ? 'unsupported' : 'invalid';
        throw new ExprError(`matches: ${what} pattern ${JSON.stringify(pattern)}: ${(err as Error).message}`);
      }
      try {
        return re.test(text);
      } catch (err) {
        throw new ExprError(`matches: ${(err as Error).message}`);
      }
    },
  },
  lower: { arity: [1, 1], fn: ([s]) => str('lower', s).toLowerCase() },
  upper: { arity: [1, 1], fn: ([s]) => str('upper', s).toUpperCase() },
  trim: { arity: [1, 1], fn: ([s]) => str('trim', s).trim() },
  split: { arity: [2, 2], fn: ([s, sep]) => str('split', s).split(str('split (separator)', sep)) },
  join: {
    arity: [1, 2],
    fn: ([list, sep]) => {
      if (!isList(list)) throw bad('join', 'a list', list);
      return list
        .map((v) => str('join (items)', asData(v, 'a list item')))
        .join(sep === undefined ? '' : str('join (separator)', sep));
    },
  },
  slice: {
    arity: [2, 3],
    fn: ([v, start, end]) => {
      const x = listOrString('slice', v);
      const a = num('slice (start)', start);
      if (end === undefined) return x.slice(a);
      return x.slice(a, num('slice (end)', end));
    },
  },
  keys: {
    arity: [1, 1],
    fn: ([o]) => {
      if (!isPlainObject(o)) throw bad('keys', 'an object', o);
      return Object.keys(o);
    },
  },
  has: {
    arity: [2, 2],
    fn: ([o, key]) => {
      if (isList(o)) return Number.isInteger(key) && (key as number) >= -o.length && (key as number) < o.length;
      if (!isPlainObject(o)) throw bad('has', 'an object or a list', o);
      return Object.hasOwn(o, str('has (key)', key)) && o[key as string] !== undefined;
    },
  },
  type: { arity: [1, 1], fn: ([v]) => kindOf(v) },
  number: {
    arity: [1, 1],
    fn: ([v]) => {
      if (typeof v === 'number') return v;
      const s = str('number', v).trim();
      const n = s === '' ? Number.NaN : Number(s);
      if (!Number.isFinite(n)) throw new ExprError(`number: cannot read a number from ${describeValue(v)}`);
      return n;
    },
  },
  string: { arity: [1, 1], fn: ([v]) => (typeof v === 'string' ? v : formatValue(v)) },
  sum: {
    arity: [1, 1],
    fn: ([list]) => {
      if (!isList(list)) throw bad('sum', 'a list of numbers', list);
      return numbers('sum', [list]).reduce((a, b) => a + b, 0);
    },
  },
} satisfies Record<string, ExprFunction>);
