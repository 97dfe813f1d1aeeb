import { setKey } from '../parsers/index.js';
import { ExprError } from './expr-error.js';

/** How deep data may nest for the operations that walk it (equality, formatting). */
export const MAX_NESTING = 1000;

/** A value the expression language works with: JSON-like data. */
export type ExprValue = null | boolean | number | string | readonly ExprValue[] | ExprObject;
/** A plain object of values. */
export interface ExprObject {
  readonly [key: string]: ExprValue;
}

/** True for a plain object (`{}`, JSON, zod output, `Object.create(null)`): the only objects the language reads. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * Checks that a value read from the scope is data (null, boolean, number, string, array, plain object) and returns
 * it as such. Functions, class instances, symbols and bigints are refused: the language never calls or walks them.
 * `undefined` is the caller's business (a missing field).
 */
export function asData(v: unknown, what: string, column?: number): ExprValue {
  if (v === null || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string') return v;
  if (Array.isArray(v) || isPlainObject(v)) return v as ExprValue;
  const kind =
    v === undefined
      ? 'undefined'
      : typeof v === 'object'
        ? 'an object that is not a plain object or list'
        : `a ${typeof v}`;
  throw new ExprError(
    `${what} is ${kind}, not data: expressions read only null, booleans, numbers, strings, lists and plain objects`,
    column,
  );
}

/** The kind of a value as the language names it (the `type()` helper returns it). */
export function kindOf(v: ExprValue): 'null' | 'boolean' | 'number' | 'string' | 'list' | 'object' {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'list';
  return typeof v as 'boolean' | 'number' | 'string' | 'object';
}

/** A short description of a value for error messages: `the number 3`, `the string "ab"`, `a list of 2 items`. */
export function describeValue(v: ExprValue): string {
  switch (kindOf(v)) {
    case 'null':
      return 'null';
    case 'boolean':
      return String(v);
    case 'number':
      return `the number ${v}`;
    case 'string': {
      const s = JSON.stringify(v);
      return `the string ${s.length > 40 ? `${s.slice(0, 39)}…"` : s}`;
    }
    case 'list': {
      const n = (v as readonly ExprValue[]).length;
      return `a list of ${n} item${n === 1 ? '' : 's'}`;
    }
    default:
      return 'an object';
  }
}

/** The value of an own property of a plain object, or undefined when it has none (never a prototype's). */
export function ownField(obj: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** Structural equality of data: same kind and same contents; numbers by value (no coercion between kinds). */
export function deepEqual(a: ExprValue, b: ExprValue, depth = 0): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (depth >= MAX_NESTING) throw new ExprError(`cannot compare values that nest deeper than ${MAX_NESTING} levels`);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++)
      if (!deepEqual(asData(a[i], 'a list item'), asData(b[i], 'a list item'), depth + 1)) return false;
    return true;
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(b, k)) return false;
    const x = ownField(a as Record<string, unknown>, k);
    const y = ownField(b as Record<string, unknown>, k);
    if (!deepEqual(asData(x, `field "${k}"`), asData(y, `field "${k}"`), depth + 1)) return false;
  }
  return true;
}

/** An object with the given own data properties, `__proto__` included as a plain key (never a prototype change). */
export function makeObject(entries: Iterable<readonly [string, ExprValue]>): ExprObject {
  const out: Record<string, ExprValue> = {};
  for (const [k, v] of entries) setKey(out, k, v);
  return out;
}
