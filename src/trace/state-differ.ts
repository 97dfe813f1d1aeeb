import type { StateDiff } from '../core/index.js';

type Json = Record<string, unknown>;

/**
 * Computes what changed in the state since the last call, for `steps.jsonl`. `messages` (which only grows, or is
 * replaced as a new array by compaction) is compared by identity, so its cost per step does not grow with the
 * history. Every other key is compared with a JSON copy the differ keeps (states are mutated in place, so the
 * previous values cannot be kept by reference): an object in both states gets a `patch` with the changes inside it,
 * an array in both a `splice` from its first changed item, anything else a `set`. So a step that appends one record
 * to a list nested in a large object (a workflow thread's `completed`) writes that record, not the object, and the
 * copy is updated by what changed only.
 */
export class StateDiffer {
  private readonly copy: Json = Object.create(null);
  private messages: unknown[] | undefined;
  private messageRefs: unknown[] = [];

  constructor(initial: Json) {
    this.diff(initial);
  }

  diff(state: Json): StateDiff {
    const diff: StateDiff = {};
    for (const key of Object.keys(state)) {
      const value = state[key];
      if (key === 'messages' && Array.isArray(value)) {
        const at = this.firstChanged(value);
        if (at < value.length || at < this.messageRefs.length)
          (diff.splice ??= {}).messages = { at, items: value.slice(at) };
        if (value === this.messages && at === this.messageRefs.length)
          for (let i = at; i < value.length; i++) this.messageRefs.push(value[i]);
        else this.messageRefs = value.slice();
        this.messages = value;
        continue;
      }
      // A top-level key is never dropped for holding nothing JSON can write: it is set to null (as always).
      diffKey(diff, this.copy, key, isAbsent(value) ? null : value);
    }
    for (const key of Object.keys(this.copy)) {
      if (!Object.hasOwn(state, key)) {
        (diff.unset ??= []).push(key);
        delete this.copy[key];
      }
    }
    return diff;
  }

  private firstChanged(value: unknown[]): number {
    const prev = this.messageRefs;
    if (value === this.messages && value.length >= prev.length) return prev.length;
    let i = 0;
    const n = Math.min(value.length, prev.length);
    while (i < n && value[i] === prev[i]) i++;
    return i;
  }
}

/** Records in `diff` how `value` differs from `copy[key]`, and brings the copy up to date. */
function diffKey(diff: StateDiff, copy: Json, key: string, value: unknown): void {
  const had = Object.hasOwn(copy, key);
  const old = had ? copy[key] : undefined;
  if (had && isPlainObject(value) && isPlainObject(old)) {
    const sub = diffObject(old as Json, value as Json);
    if (sub) put((diff.patch ??= {}) as Json, key, sub);
    return;
  }
  if (had && Array.isArray(value) && Array.isArray(old)) {
    let at = 0;
    const n = Math.min(old.length, value.length);
    while (at < n && sameJson(old[at], inArray(value[at]))) at++;
    if (at === old.length && at === value.length) return;
    put((diff.splice ??= {}) as Json, key, { at, items: value.slice(at) });
    old.length = at;
    for (let i = at; i < value.length; i++) old.push(toJson(inArray(value[i])));
    return;
  }
  if (had && sameJson(old, value)) return;
  put((diff.set ??= {}) as Json, key, value);
  put(copy, key, toJson(value));
}

/** The changes inside an object (undefined when none); `copy` is updated to match. */
function diffObject(copy: Json, value: Json): StateDiff | undefined {
  const diff: StateDiff = {};
  for (const key of Object.keys(value)) {
    const v = value[key];
    if (!isAbsent(v)) diffKey(diff, copy, key, v);
  }
  for (const key of Object.keys(copy)) {
    if (!Object.hasOwn(value, key) || isAbsent(value[key])) {
      (diff.unset ??= []).push(key);
      delete copy[key];
    }
  }
  return diff.set || diff.splice || diff.unset || diff.patch ? diff : undefined;
}

/**
 * Whether a live value writes the same JSON as `copy` (a copy `toJson` made). Walks plain objects and arrays
 * rather than writing JSON text: this runs over the whole state every step.
 */
function sameJson(copy: unknown, value: unknown): boolean {
  if (value === null || typeof value !== 'object') {
    if (copy === value) return true;
    return typeof value === 'number' && !Number.isFinite(value) && copy === null;
  }
  if (Array.isArray(value)) {
    if (!Array.isArray(copy) || copy.length !== value.length) return false;
    for (let i = 0; i < value.length; i++) if (!sameJson(copy[i], inArray(value[i]))) return false;
    return true;
  }
  if (!isPlainObject(value)) return sameText(copy, value);
  if (copy === null || typeof copy !== 'object' || Array.isArray(copy)) return false;
  // Copies have no prototype, so a key they lack reads as undefined.
  const c = copy as Json;
  const v = value as Json;
  let n = 0;
  for (const key in v) {
    const x = v[key];
    if (isAbsent(x)) continue;
    const y = c[key];
    if (y === undefined || !sameJson(y, x)) return false;
    n++;
  }
  return n === Object.keys(c).length;
}

/** For values JSON writes in their own way (a Date, a class with `toJSON`): compare the texts. */
function sameText(copy: unknown, value: unknown): boolean {
  return JSON.stringify(copy) === JSON.stringify(value);
}

/** A JSON copy of a value (what the trace line holds), its objects without a prototype. */
function toJson(value: unknown): unknown {
  if (value === null || typeof value !== 'object')
    return typeof value === 'number' && !Number.isFinite(value) ? null : value;
  if (Array.isArray(value)) return value.map((x) => toJson(inArray(x)));
  if (!isPlainObject(value)) {
    const text = JSON.stringify(value);
    return text === undefined ? null : toJson(JSON.parse(text));
  }
  const out: Json = Object.create(null);
  for (const key in value as Json) {
    const x = (value as Json)[key];
    if (!isAbsent(x)) out[key] = toJson(x);
  }
  return out;
}

/** An array item as JSON writes it (null for what it leaves out of an object). */
function inArray(value: unknown): unknown {
  return isAbsent(value) ? null : value;
}

/** An object JSON writes key by key: its own prototype is Object's (or none), and it has no `toJSON`. */
function isPlainObject(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

/** A value JSON leaves out of an object (and writes as null in an array). */
function isAbsent(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/** Sets an own property, also for the key `__proto__`. */
function put(obj: Json, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}
