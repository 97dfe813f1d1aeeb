import type { StateDiff } from '../core/index.js';

type Json = Record<string, unknown>;

/**
 * Computes what changed in the state since the last call, for `steps.jsonl`. `messages` (which only grows, or is
 * replaced as a new array by compaction) is compared by identity, so its cost per step does not grow with the
 * history. Every other key is compared with a JSON copy the differ keeps (states are mutated in place, so the
 * previous values cannot be kept by reference): an object in both states gets a `patch` with the changes inside it,
 * an array in both a `splice` from its first changed item, anything else a `set`. So a step that appends one record
 * to a list nested in a large object (a workflow thread's `completed`) writes that record, not the object, and the
 * copy is updated by what changed only. The comparison walks the whole state, except objects and arrays that are
 * frozen all the way down (a workflow freezes each node's record): their JSON cannot change, so once one equals a
 * copy it is skipped for as long as it stays in the state, and a step's cost does not grow with them.
 */
export class StateDiffer {
  private readonly copy: Json = Object.create(null);
  private readonly settled = new Settled();
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
      diffKey(this.settled, diff, this.copy, key, isAbsent(value) ? null : value);
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
function diffKey(s: Settled, diff: StateDiff, copy: Json, key: string, value: unknown): void {
  const had = Object.hasOwn(copy, key);
  let old = had ? copy[key] : undefined;
  if (had && s.same(old, value)) return;
  if (had && isPlainObject(value) && isPlainObject(old)) {
    if (s.pinned(old as object)) put(copy, key, (old = toJson(old)));
    const sub = diffObject(s, old as Json, value as Json);
    if (sub) put((diff.patch ??= {}) as Json, key, sub);
    else s.note(old, value);
    return;
  }
  if (had && Array.isArray(value) && Array.isArray(old)) {
    let at = 0;
    const n = Math.min(old.length, value.length);
    while (at < n && sameJson(s, old[at], inArray(value[at]))) at++;
    if (at === old.length && at === value.length) return s.note(old, value);
    put((diff.splice ??= {}) as Json, key, { at, items: value.slice(at) });
    if (s.pinned(old)) put(copy, key, (old = (old as unknown[]).slice()));
    const arr = old as unknown[];
    arr.length = at;
    for (let i = at; i < value.length; i++) arr.push(s.copy(inArray(value[i])));
    return;
  }
  if (had && sameJson(s, old, value)) return;
  put((diff.set ??= {}) as Json, key, value);
  put(copy, key, s.copy(value));
}

/** The changes inside an object (undefined when none); `copy` is updated to match. */
function diffObject(s: Settled, copy: Json, value: Json): StateDiff | undefined {
  const diff: StateDiff = {};
  let n = 0;
  for (const key in value) {
    const v = value[key];
    if (isAbsent(v)) continue;
    n++;
    // The common case inline (a variable that kept its value): no call per unchanged scalar.
    if (copy[key] === v && (v === null || typeof v !== 'object')) continue;
    diffKey(s, diff, copy, key, v);
  }
  // Every key of `value` is in `copy` now, so equal counts mean nothing to remove.
  const keys = Object.keys(copy);
  if (keys.length !== n)
    for (const key of keys) {
      if (!Object.hasOwn(value, key) || isAbsent(value[key])) {
        (diff.unset ??= []).push(key);
        delete copy[key];
      }
    }
  return diff.set || diff.splice || diff.unset || diff.patch ? diff : undefined;
}

/**
 * Whether a live value writes the same JSON as `copy` (a copy `toJson` made). Walks plain objects and arrays
 * rather than writing JSON text: this runs over the whole state every step (settled values excepted).
 */
function sameJson(s: Settled, copy: unknown, value: unknown): boolean {
  if (value === null || typeof value !== 'object') {
    if (copy === value) return true;
    return typeof value === 'number' && !Number.isFinite(value) && copy === null;
  }
  if (s.same(copy, value)) return true;
  if (Array.isArray(value)) {
    if (!Array.isArray(copy) || copy.length !== value.length) return false;
    for (let i = 0; i < value.length; i++) if (!sameJson(s, copy[i], inArray(value[i]))) return false;
    s.note(copy, value);
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
    if (y === undefined || !sameJson(s, y, x)) return false;
    n++;
  }
  if (n !== Object.keys(c).length) return false;
  s.note(copy, value);
  return true;
}

/**
 * Live objects and arrays frozen all the way down (plain ones only: a frozen Date can still change), each with the
 * copy it was last seen equal to. Such a copy is never changed in place (the differ replaces it instead), so while
 * the live value is at the copy's place in the state, the two still write the same JSON.
 */
class Settled {
  private readonly copyOf = new WeakMap<object, unknown>();
  private readonly copies = new WeakSet<object>();
  private readonly frozen = new WeakSet<object>();

  /** True when `value` is settled and `copy` is its copy. */
  same(copy: unknown, value: unknown): boolean {
    return value !== null && typeof value === 'object' && this.copyOf.get(value) === copy;
  }

  /** `copy` now equals `value`: remember the pair when `value` is frozen all the way down. */
  note(copy: unknown, value: unknown): void {
    if (copy !== null && typeof copy === 'object' && Object.isFrozen(value) && this.deepFrozen(value as object)) {
      this.copyOf.set(value as object, copy);
      this.copies.add(copy);
    }
  }

  /** True for a copy a settled value points at (so it must not be changed in place). */
  pinned(copy: object): boolean {
    return this.copies.has(copy);
  }

  /** A JSON copy of a live value, noted when it is settled. */
  copy(value: unknown): unknown {
    const c = toJson(value);
    this.note(c, value);
    return c;
  }

  private deepFrozen(value: object): boolean {
    if (this.frozen.has(value)) return true;
    if (!Object.isFrozen(value) || !(Array.isArray(value) || isPlainObject(value))) return false;
    // A getter can answer differently each time, frozen or not.
    for (const d of Object.values(Object.getOwnPropertyDescriptors(value))) {
      if (!('value' in d)) return false;
      const x: unknown = d.value;
      if (x !== null && typeof x === 'object' && !this.deepFrozen(x)) return false;
    }
    this.frozen.add(value);
    return true;
  }
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
