import { QitosError, markErrorClass } from '../../../core/index.js';

/**
 * Python values as the original's tools see them after `json.loads`: `str` is a JS string, `int` a JS number
 * (a bigint beyond 2^53), `float` a {@link PyFloat} (so `46.0` stays a float), `bool` a boolean, `None` null,
 * `list` an array and `dict` a `Map` (insertion order kept, integer-like keys included; a plain object would move
 * them first). `PyTuple` exists only for the calculate tool's evaluator (`()`), never in data.
 */
export type PyValue = string | number | bigint | boolean | null | PyFloat | PyValue[] | PyDict | PyEllipsis | PyTuple;
/** A Python dict with string keys (the only kind JSON and the tools make). */
export type PyDict = Map<string, PyValue>;

/** A Python float. Wrapping keeps `1.0` apart from `1` through parse, arithmetic, repr and json.dumps. */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** Python's `...` (reachable in the calculate tool's expressions, which allow dots). */
export class PyEllipsis {}
/** A Python tuple (the calculate tool's `()` evaluates to one). */
export class PyTuple {
  constructor(readonly items: PyValue[]) {}
}

/** Python's `type(x).__name__`, used in CPython's error wording. */
export function pyTypeName(v: PyValue | undefined): string {
  if (v === null || v === undefined) return 'NoneType';
  switch (typeof v) {
    case 'string':
      return 'str';
    case 'number':
    case 'bigint':
      return 'int';
    case 'boolean':
      return 'bool';
  }
  if (v instanceof PyFloat) return 'float';
  if (Array.isArray(v)) return 'list';
  if (v instanceof Map) return 'dict';
  if (v instanceof PyEllipsis) return 'ellipsis';
  if (v instanceof PyTuple) return 'tuple';
  return 'object';
}

/** An exception as the original raises it: `String(e)` in the env gives `Error: <message>`. */
export class PyException extends QitosError {
  static {
    markErrorClass(this, 'PyException');
  }

  constructor(
    readonly pyType: string,
    message: string,
  ) {
    super('bench', message);
    this.name = pyType;
  }
}

/**
 * A JSON-able view of a value for callers that do not care about int vs float (a `PyFloat` becomes a number,
 * a dict a plain object with its keys in insertion order where JS allows it). Use `pyDumps` for exact text.
 */
export function toPlain(v: PyValue): unknown {
  if (v instanceof PyFloat) return v.value;
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(toPlain);
  if (v instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of v) out[k] = toPlain(x);
    return out;
  }
  if (v instanceof PyTuple) return v.items.map(toPlain);
  if (v instanceof PyEllipsis) return null;
  return v;
}

/**
 * The reverse of {@link toPlain} for values built in JS: an integer-valued number becomes an int, any other
 * number a float (so pass a `PyFloat` or JSON text when a float with an integral value is meant).
 */
export function fromPlain(v: unknown): PyValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isInteger(v) ? v : new PyFloat(v);
  if (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'bigint') return v;
  if (v instanceof PyFloat || v instanceof Map) return v as PyValue;
  if (Array.isArray(v)) return v.map(fromPlain);
  if (typeof v === 'object') {
    const m: PyDict = new Map();
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) m.set(k, fromPlain(x));
    return m;
  }
  throw new TypeError(`not a JSON value: ${typeof v}`);
}

/** A deep copy of a value (`copy.deepcopy` for the JSON-shaped values the tools hold). */
export function pyDeepCopy(v: PyValue): PyValue {
  if (Array.isArray(v)) return v.map(pyDeepCopy);
  if (v instanceof Map) {
    const m: PyDict = new Map();
    for (const [k, x] of v) m.set(k, pyDeepCopy(x));
    return m;
  }
  return v;
}
