import { PyException, PyFloat, pyTypeName, type PyDict, type PyValue } from './py-value.js';
import { pyRepr, pyStrCompare } from './py-repr.js';
import { pyRoundFloat } from './py-round.js';

/**
 * Python's operators on the values the tools handle, with CPython's results (int op int stays int, anything with a
 * float is a float, bool counts as int) and CPython's TypeError/KeyError wording for what a model may pass in.
 */

const typeError = (msg: string): PyException => new PyException('TypeError', msg);

function isInt(v: PyValue): v is number | bigint | boolean {
  return typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean';
}
function intOf(v: number | bigint | boolean): number | bigint {
  return typeof v === 'boolean' ? (v ? 1 : 0) : v;
}
/** An int result as a number when exact, else a bigint. */
function normInt(v: bigint): number | bigint {
  return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
}
/** Python's `float(int)` (OverflowError beyond the double range). */
export function intToFloat(v: number | bigint): number {
  const f = Number(v);
  if (!Number.isFinite(f)) throw new PyException('OverflowError', 'int too large to convert to float');
  return f;
}
function floatOf(v: PyValue): number | undefined {
  if (v instanceof PyFloat) return v.value;
  if (isInt(v)) return intToFloat(intOf(v));
  return undefined;
}

function intArith(op: '+' | '-' | '*', a: number | bigint, b: number | bigint): number | bigint {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = op === '+' ? a + b : op === '-' ? a - b : a * b;
    if (Number.isSafeInteger(r)) return r;
  }
  const x = BigInt(a);
  const y = BigInt(b);
  return normInt(op === '+' ? x + y : op === '-' ? x - y : x * y);
}

function unsupported(op: string, a: PyValue, b: PyValue): PyException {
  return typeError(`unsupported operand type(s) for ${op}: '${pyTypeName(a)}' and '${pyTypeName(b)}'`);
}

/** `a + b` (`opText` is how the error names the operator, e.g. `+=`). */
export function pyAdd(a: PyValue, b: PyValue, opText = '+'): PyValue {
  if (isInt(a) && isInt(b)) return intArith('+', intOf(a), intOf(b));
  if ((a instanceof PyFloat || isInt(a)) && (b instanceof PyFloat || isInt(b)))
    return new PyFloat(floatOf(a)! + floatOf(b)!);
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  if (typeof a === 'string' && opText === '+')
    throw typeError(`can only concatenate str (not "${pyTypeName(b)}") to str`);
  if (Array.isArray(a) && opText === '+') throw typeError(`can only concatenate list (not "${pyTypeName(b)}") to list`);
  throw unsupported(opText, a, b);
}

/** `a - b`. */
export function pySub(a: PyValue, b: PyValue, opText = '-'): PyValue {
  if (isInt(a) && isInt(b)) return intArith('-', intOf(a), intOf(b));
  if ((a instanceof PyFloat || isInt(a)) && (b instanceof PyFloat || isInt(b)))
    return new PyFloat(floatOf(a)! - floatOf(b)!);
  throw unsupported(opText, a, b);
}

/** `a * b` (sequence repetition included, as Python does for `str * int`). */
export function pyMul(a: PyValue, b: PyValue, opText = '*'): PyValue {
  if (isInt(a) && isInt(b)) return intArith('*', intOf(a), intOf(b));
  if ((a instanceof PyFloat || isInt(a)) && (b instanceof PyFloat || isInt(b)))
    return new PyFloat(floatOf(a)! * floatOf(b)!);
  const seq = typeof a === 'string' || Array.isArray(a) ? a : typeof b === 'string' || Array.isArray(b) ? b : undefined;
  const count = seq === a ? b : a;
  if (seq !== undefined && isInt(count)) {
    const k = Math.max(0, Number(intOf(count)));
    if (k * seq.length > 1e7) throw new PyException('MemoryError', '');
    if (typeof seq === 'string') return seq.repeat(k);
    const out: PyValue[] = [];
    for (let j = 0; j < k; j++) out.push(...seq);
    return out;
  }
  if (seq !== undefined) throw typeError(`can't multiply sequence by non-int of type '${pyTypeName(count)}'`);
  throw unsupported(opText, a, b);
}

/** `-a`. */
export function pyNeg(a: PyValue): PyValue {
  if (isInt(a)) return intArith('-', 0, intOf(a));
  if (a instanceof PyFloat) return new PyFloat(-a.value);
  throw typeError(`bad operand type for unary -: '${pyTypeName(a)}'`);
}

/** `abs(a)`. */
export function pyAbs(a: PyValue): PyValue {
  if (isInt(a)) {
    const v = intOf(a);
    return v < 0 ? intArith('-', 0, v) : v;
  }
  if (a instanceof PyFloat) return new PyFloat(Math.abs(a.value));
  throw typeError(`bad operand type for abs(): '${pyTypeName(a)}'`);
}

/** Exact comparison of two numbers (an int and a float compare by value, as CPython, not by rounding the int). */
function numCmp(a: PyValue, b: PyValue): number | undefined {
  const x = isInt(a) ? intOf(a) : a instanceof PyFloat ? a.value : undefined;
  const y = isInt(b) ? intOf(b) : b instanceof PyFloat ? b.value : undefined;
  if (x === undefined || y === undefined) return undefined;
  if (typeof x === 'number' && typeof y === 'number') return x < y ? -1 : x > y ? 1 : x === y ? 0 : NaN;
  if (typeof x === 'bigint' && typeof y === 'bigint') return x < y ? -1 : x > y ? 1 : 0;
  // one bigint, one number (maybe a non-integral float)
  const [big, num, flip] = typeof x === 'bigint' ? [x, y as number, 1] : [y as bigint, x as number, -1];
  if (Number.isNaN(num)) return NaN;
  if (!Number.isFinite(num)) return (num > 0 ? -1 : 1) * flip;
  const fl = BigInt(Math.floor(num));
  const c = big < fl ? -1 : big > fl ? 1 : num === Math.floor(num) ? 0 : -1;
  return c * flip;
}

/** `a < b` (and the other orderings through `op`). */
export function pyCompare(op: '<' | '<=' | '>' | '>=', a: PyValue, b: PyValue): boolean {
  let c = numCmp(a, b);
  if (c === undefined && typeof a === 'string' && typeof b === 'string') c = Math.sign(pyStrCompare(a, b));
  if (c === undefined)
    throw typeError(`'${op}' not supported between instances of '${pyTypeName(a)}' and '${pyTypeName(b)}'`);
  if (Number.isNaN(c)) return false;
  return op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
}

/** `a == b`. */
export function pyEq(a: PyValue, b: PyValue): boolean {
  if (typeof a === 'string') return a === b;
  const c = numCmp(a, b);
  if (c !== undefined) return c === 0;
  if (typeof a === 'string' || typeof b === 'string' || a === null || b === null) return a === b;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, k) => pyEq(x, b[k]));
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, x] of a) if (!b.has(k) || !pyEq(x, b.get(k)!)) return false;
    return true;
  }
  return a === b;
}

/** `bool(a)`. */
export function pyTruthy(a: PyValue): boolean {
  if (a === null || a === false || a === 0 || a === 0n || a === '') return false;
  if (a instanceof PyFloat) return a.value !== 0;
  if (Array.isArray(a)) return a.length > 0;
  if (a instanceof Map) return a.size > 0;
  return true;
}

function checkHashable(key: PyValue): void {
  if (Array.isArray(key) || key instanceof Map) throw typeError(`unhashable type: '${pyTypeName(key)}'`);
}

/** `key in container`. */
export function pyIn(key: PyValue, container: PyValue): boolean {
  if (container instanceof Map) {
    checkHashable(key);
    return typeof key === 'string' && container.has(key);
  }
  if (Array.isArray(container)) return container.some((x) => pyEq(x, key));
  if (typeof container === 'string') {
    if (typeof key !== 'string')
      throw typeError(`'in <string>' requires string as left operand, not ${pyTypeName(key)}`);
    return container.includes(key);
  }
  throw typeError(`argument of type '${pyTypeName(container)}' is not iterable`);
}

/** `container[key]` (KeyError's text is the key's repr, as `str(KeyError)` prints it). */
export function pyGet(container: PyValue, key: PyValue): PyValue {
  if (container instanceof Map) {
    checkHashable(key);
    const v = typeof key === 'string' ? container.get(key) : undefined;
    if (v === undefined) throw new PyException('KeyError', pyRepr(key));
    return v;
  }
  if (Array.isArray(container)) {
    if (!isInt(key)) throw typeError(`list indices must be integers or slices, not ${pyTypeName(key)}`);
    const k = Number(intOf(key));
    const v = container[k < 0 ? container.length + k : k];
    if (v === undefined) throw new PyException('IndexError', 'list index out of range');
    return v;
  }
  if (typeof container === 'string') {
    if (!isInt(key)) throw typeError(`string indices must be integers, not '${pyTypeName(key)}'`);
    const k = Number(intOf(key));
    const v = container[k < 0 ? container.length + k : k];
    if (v === undefined) throw new PyException('IndexError', 'string index out of range');
    return v;
  }
  throw typeError(`'${pyTypeName(container)}' object is not subscriptable`);
}

/** `container[key] = value` on a dict (what the tools assign to). */
export function pySet(container: PyValue, key: string, value: PyValue): void {
  if (container instanceof Map) {
    container.set(key, value);
    return;
  }
  if (Array.isArray(container)) throw typeError('list indices must be integers or slices, not str');
  throw typeError(`'${pyTypeName(container)}' object does not support item assignment`);
}

/** `len(x)`. */
export function pyLen(x: PyValue): number {
  if (typeof x === 'string') return [...x].length;
  if (Array.isArray(x)) return x.length;
  if (x instanceof Map) return x.size;
  throw typeError(`object of type '${pyTypeName(x)}' has no len()`);
}

/** `iter(x)` as a `for` loop sees it (a dict gives its keys, a string its characters). */
export function pyIter(x: PyValue): PyValue[] {
  if (Array.isArray(x)) return x;
  if (x instanceof Map) return [...x.keys()];
  if (typeof x === 'string') return [...x];
  throw typeError(`'${pyTypeName(x)}' object is not iterable`);
}

/** `list.count(x)`. */
export function pyCount(list: PyValue[], x: PyValue): number {
  let k = 0;
  for (const v of list) if (pyEq(v, x)) k++;
  return k;
}

/** `sorted(list)` of strings or numbers (what the tools sort), with Python's TypeError on mixed kinds. */
export function pySorted(x: PyValue): PyValue[] {
  const items = [...pyIter(x)];
  return items.sort((a, b) => (pyCompare('<', a, b) ? -1 : pyCompare('<', b, a) ? 1 : 0));
}

/** `d.get(key)` semantics are not needed; `dict` access goes through {@link pyGet}. A dict asserted as such. */
export function asDict(v: PyValue): PyDict {
  if (!(v instanceof Map)) throw typeError(`'${pyTypeName(v)}' object is not a dict`);
  return v;
}

/** `round(x, ndigits)`: an int comes back unchanged, a float rounded as CPython does. */
export function pyRound(x: PyValue, ndigits: number): PyValue {
  if (isInt(x)) return intOf(x);
  if (x instanceof PyFloat) return new PyFloat(pyRoundFloat(x.value, ndigits));
  throw typeError(`type ${pyTypeName(x)} doesn't define __round__ method`);
}

/** `x.lower()`. */
export function pyLower(x: PyValue): string {
  if (typeof x !== 'string')
    throw new PyException('AttributeError', `'${pyTypeName(x)}' object has no attribute 'lower'`);
  return x.toLowerCase();
}

/** `int(s)` of a string (whitespace, a sign and digit-separating underscores allowed, as CPython). */
export function pyIntOfStr(s: PyValue): number | bigint {
  if (typeof s !== 'string') {
    if (isInt(s)) return intOf(s);
    if (s instanceof PyFloat) return Math.trunc(s.value);
    throw typeError(`int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(s)}'`);
  }
  const t = s.trim();
  if (!/^[+-]?\d+(?:_\d+)*$/.test(t))
    throw new PyException('ValueError', `invalid literal for int() with base 10: ${pyRepr(s)}`);
  return normInt(BigInt(t.replace(/_/g, '')));
}

/** `seq.count(x)` for a list or a str. */
export function pyCountOf(seq: PyValue, x: PyValue): number {
  if (Array.isArray(seq)) return pyCount(seq, x);
  if (typeof seq === 'string') {
    if (typeof x !== 'string') throw typeError(`must be str, not ${pyTypeName(x)}`);
    if (x === '') return [...seq].length + 1;
    return seq.split(x).length - 1;
  }
  throw new PyException('AttributeError', `'${pyTypeName(seq)}' object has no attribute 'count'`);
}

/** `zip(a, b)`. */
export function pyZip(a: PyValue, b: PyValue): [PyValue, PyValue][] {
  const x = pyIter(a);
  const y = pyIter(b);
  const out: [PyValue, PyValue][] = [];
  for (let k = 0; k < Math.min(x.length, y.length); k++) out.push([x[k], y[k]]);
  return out;
}

/** `sum(values)` (start 0). */
export function pySum(values: Iterable<PyValue>): PyValue {
  let acc: PyValue = 0;
  for (const v of values) acc = pyAdd(acc, v);
  return acc;
}

/** `max(a, b)` (the first of the largest, compared with `>` as CPython's builtin does). */
export function pyMax(a: PyValue, b: PyValue): PyValue {
  return pyCompare('>', b, a) ? b : a;
}

/** `list.append(x)` / `list.extend(xs)` on a value that should be a list. */
export function pyAppend(list: PyValue, x: PyValue): void {
  if (!Array.isArray(list))
    throw new PyException('AttributeError', `'${pyTypeName(list)}' object has no attribute 'append'`);
  list.push(x);
}
export function pyExtend(list: PyValue, xs: PyValue[]): void {
  if (!Array.isArray(list))
    throw new PyException('AttributeError', `'${pyTypeName(list)}' object has no attribute 'extend'`);
  list.push(...xs);
}

/** `del d[key]`. */
export function pyDel(d: PyValue, key: PyValue): void {
  if (!(d instanceof Map)) throw typeError(`'${pyTypeName(d)}' object doesn't support item deletion`);
  checkHashable(key);
  if (typeof key !== 'string' || !d.has(key)) throw new PyException('KeyError', pyRepr(key));
  d.delete(key);
}

/** `{k: v for k, v in d.items() if k != skip}` then `.update(other)` (the flight search results). */
export function pyDictWithout(d: PyValue, skip: string): PyDict {
  if (!(d instanceof Map))
    throw new PyException('AttributeError', `'${pyTypeName(d)}' object has no attribute 'items'`);
  const out: PyDict = new Map();
  for (const [k, v] of d) if (k !== skip) out.set(k, v);
  return out;
}
export function pyUpdate(d: PyDict, other: PyValue): void {
  if (!(other instanceof Map)) throw typeError(`'${pyTypeName(other)}' object is not iterable`);
  for (const [k, v] of other) d.set(k, v);
}
