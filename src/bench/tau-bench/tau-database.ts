import { createHash, type Hash } from 'node:crypto';
import { PyException, pyDeepCopy, type PyDict, type PyValue } from './py/py-value.js';
import { pyHashableRepr, pyRepr, pyStrCompare, pyStrRepr } from './py/py-repr.js';

/**
 * One domain's database, loaded once and never changed: tables (`flights`, `reservations`, ... as `load_data()`
 * returns them) of records keyed by id. It also holds, per table, the records' `to_hashable` reprs in sorted-key
 * order as one buffer, so a session's hash re-uses the bytes of every record it did not change.
 */
export class TauBaseDatabase {
  /** Table names in `load_data()` order. */
  readonly tableNames: string[];
  readonly tables: Map<string, PyDict>;
  /** Per table: keys sorted as Python sorts them, the position of each key, and the joined reprs. */
  private readonly index = new Map<
    string,
    { sorted: string[]; pos: Map<string, number>; buf: Buffer; start: Uint32Array; end: Uint32Array }
  >();
  /** `sha256(str(to_hashable(data)))` of the untouched database. */
  readonly hash: string;
  private readonly checkpoints: { t: number; i: number; h: Hash }[];

  /** `checkpointBytes`: how often the unchanged stream's sha256 state is saved (tests use small values). */
  constructor(tables: [string, PyDict][], checkpointBytes = 64 * 1024) {
    this.tableNames = tables.map(([n]) => n);
    this.tables = new Map(tables);
    for (const [name, table] of tables) {
      const sorted = [...table.keys()].sort(pyStrCompare);
      const pos = new Map(sorted.map((k, i) => [k, i]));
      const parts = sorted.map((k) => Buffer.from(recordRepr(k, table.get(k)!), 'utf8'));
      const start = new Uint32Array(sorted.length);
      const end = new Uint32Array(sorted.length);
      let at = 0;
      parts.forEach((p, i) => {
        if (i) at += 2;
        start[i] = at;
        at += p.length;
        end[i] = at;
      });
      const chunks: Buffer[] = [];
      parts.forEach((p, i) => {
        if (i) chunks.push(Buffer.from(', '));
        chunks.push(p);
      });
      this.index.set(name, { sorted, pos, buf: Buffer.concat(chunks), start, end });
    }
    this.checkpoints = this.buildCheckpoints(checkpointBytes);
    this.hash = this.hashWith(new Map());
  }

  /**
   * The hash of this database with some records replaced or added (`changes`: table -> key -> record). Unchanged
   * stretches of each table are fed to sha256 straight from the precomputed buffer, and the stream up to the first
   * changed record resumes from a saved sha256 state (a checkpoint every ~64 KB), so it is never hashed again.
   */
  hashWith(changes: Map<string, Map<string, PyValue>>): string {
    const names = this.sortedNames;
    // where the first change is: [table index, record position]
    let firstT = names.length;
    let firstP = 0;
    names.forEach((name, ti) => {
      const changed = changes.get(name);
      if (!changed || changed.size === 0 || ti > firstT) return;
      const idx = this.index.get(name)!;
      let p = Infinity;
      for (const k of changed.keys()) p = Math.min(p, idx.pos.get(k) ?? lowerBound(idx.sorted, k));
      if (ti < firstT) {
        firstT = ti;
        firstP = p;
      }
    });
    let resume: { t: number; i: number; h: Hash } | undefined;
    for (const c of this.checkpoints) {
      if (c.t < firstT || (c.t === firstT && c.i <= firstP)) resume = c;
      else break;
    }
    const h = resume ? resume.h.copy() : createHash('sha256');
    if (!resume) h.update('(');
    for (let ti = resume ? resume.t : 0; ti < names.length; ti++) {
      const name = names[ti];
      const idx = this.index.get(name)!;
      const resumedHere = resume !== undefined && ti === resume.t;
      if (!resumedHere) {
        if (ti) h.update(', ');
        h.update(`(${pyStrRepr(name)}, (`);
      }
      const changed = changes.get(name);
      const items = idx.sorted.length + (changed ? [...changed.keys()].filter((k) => !idx.pos.has(k)).length : 0);
      let cursor = resumedHere ? resume!.i : 0;
      let first = cursor === 0;
      const emitBase = (to: number): void => {
        if (to <= cursor) return;
        if (!first) h.update(', ');
        h.update(idx.buf.subarray(idx.start[cursor], idx.end[to - 1]));
        first = false;
        cursor = to;
      };
      if (changed && changed.size) {
        // changes in sorted order: position in the base order, key, whether it replaces a base record
        const list = [...changed.keys()]
          .map((k) => {
            const p = idx.pos.get(k);
            return { k, p: p ?? lowerBound(idx.sorted, k), replaces: p !== undefined };
          })
          .sort((a, b) => a.p - b.p || pyStrCompare(a.k, b.k));
        for (const c of list) {
          emitBase(c.p);
          if (!first) h.update(', ');
          h.update(recordRepr(c.k, changed.get(c.k)!));
          first = false;
          if (c.replaces) cursor = c.p + 1;
        }
      }
      emitBase(idx.sorted.length);
      h.update(items === 1 ? ',))' : '))');
    }
    h.update(names.length === 1 ? ',)' : ')');
    return h.digest('hex');
  }

  private get sortedNames(): string[] {
    return [...this.tableNames].sort(pyStrCompare);
  }

  /** sha256 states at record boundaries of the unchanged stream: after everything before record `i` of table `t`. */
  private buildCheckpoints(every: number): { t: number; i: number; h: Hash }[] {
    const out: { t: number; i: number; h: Hash }[] = [];
    const h = createHash('sha256');
    h.update('(');
    this.sortedNames.forEach((name, t) => {
      if (t) h.update(', ');
      h.update(`(${pyStrRepr(name)}, (`);
      const idx = this.index.get(name)!;
      let fed = 0; // records of this table fed so far
      let since = every; // a checkpoint at the start of every table
      for (let i = 0; i < idx.sorted.length; i++) {
        if (since >= every) {
          if (i > fed) h.update(idx.buf.subarray(fed ? idx.end[fed - 1] : 0, idx.end[i - 1]));
          fed = i;
          out.push({ t, i, h: h.copy() });
          since = 0;
        }
        since += idx.end[i] - idx.start[i];
      }
      if (idx.sorted.length > fed)
        h.update(idx.buf.subarray(fed ? idx.end[fed - 1] : 0, idx.end[idx.sorted.length - 1]));
      h.update(idx.sorted.length === 1 ? ',))' : '))');
    });
    return out;
  }
}

function lowerBound(sorted: string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (pyStrCompare(sorted[mid], key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function recordRepr(key: string, value: PyValue): string {
  return `(${pyStrRepr(key)}, ${pyHashableRepr(value)})`;
}

/**
 * A table as the tools see it, over a copy-on-write overlay: reads fall through to the shared base, the first
 * write to a record copies that one record (deep) into the overlay.
 */
export class TauTable {
  constructor(
    private readonly base: PyDict,
    private readonly overlay: Map<string, PyValue>,
  ) {}

  private check(key: PyValue): key is string {
    if (Array.isArray(key) || key instanceof Map)
      throw new PyException('TypeError', `unhashable type: '${Array.isArray(key) ? 'list' : 'dict'}'`);
    return typeof key === 'string';
  }
  /** `key in table`. */
  has(key: PyValue): boolean {
    return this.check(key) && (this.overlay.has(key) || this.base.has(key));
  }
  /** `table[key]` for reading (the value must not be changed: it may be the shared base's). */
  get(key: PyValue): PyValue {
    if (this.check(key)) {
      const v = this.overlay.get(key) ?? this.base.get(key);
      if (v !== undefined) return v;
    }
    throw new PyException('KeyError', pyRepr(key));
  }
  /** `table[key]` for changing: this session's own copy of the record. */
  mut(key: PyValue): PyValue {
    if (this.check(key)) {
      const own = this.overlay.get(key);
      if (own !== undefined) return own;
      const b = this.base.get(key);
      if (b !== undefined) {
        const copy = pyDeepCopy(b);
        this.overlay.set(key, copy);
        return copy;
      }
    }
    throw new PyException('KeyError', pyRepr(key));
  }
  /** `table[key] = value`. */
  set(key: string, value: PyValue): void {
    this.overlay.set(key, value);
  }
  /** `table.items()` in Python's order (base order, then keys added later). */
  *entries(): Iterable<[string, PyValue]> {
    for (const [k, v] of this.base) yield [k, this.overlay.get(k) ?? v];
    for (const [k, v] of this.overlay) if (!this.base.has(k)) yield [k, v];
  }
  *values(): Iterable<PyValue> {
    for (const [, v] of this.entries()) yield v;
  }
}

/** One session's view of the database: the shared base plus this session's changed records. */
export class TauData {
  private readonly overlays = new Map<string, Map<string, PyValue>>();
  private readonly views = new Map<string, TauTable>();

  constructor(readonly base: TauBaseDatabase) {
    for (const name of base.tableNames) {
      const overlay = new Map<string, PyValue>();
      this.overlays.set(name, overlay);
      this.views.set(name, new TauTable(base.tables.get(name)!, overlay));
    }
  }
  table(name: string): TauTable {
    const t = this.views.get(name);
    if (!t) throw new PyException('KeyError', pyStrRepr(name));
    return t;
  }
  /** How many records this session copied or added. */
  changedRecords(): number {
    let n = 0;
    for (const o of this.overlays.values()) n += o.size;
    return n;
  }
  hash(): string {
    return this.changedRecords() === 0 ? this.base.hash : this.base.hashWith(this.overlays);
  }
}
