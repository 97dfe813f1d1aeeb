import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { readManifest, TraceError } from '../../trace/index.js';
import { boardBench, type BoardBench } from './board-bench.js';
import { boardRow, rowOf, type BoardRow } from './board-row.js';
import { readLiveSteps, type LiveSteps } from './live-steps.js';

/** How the board's index reads its folders. */
export interface BoardIndexOptions {
  /** Folder for the index cache files (one per root), or undefined for none: every start reads every manifest. */
  cacheDir?: string;
  /** Levels of sub-folders searched for runs under each root (default 4: a sweep's variant's bench traces). */
  depth?: number;
}

/** A run folder the index knows: its manifest's mtime and size when it was read, and what it read. */
interface RunEntry {
  root: number;
  rel: string;
  dir: string;
  mtimeMs: number;
  size: number;
  row: BoardRow | null;
  /** Why the manifest is not listed (the schema's reason), when it is not. */
  problem: string | null;
  /** A running run's steps so far (read on from where the last refresh stopped). */
  live?: LiveSteps;
  /** The index version at which this entry last changed. */
  changed: number;
}

/** A bench folder the index knows, keyed like runs; re-read when its results.jsonl changes. */
interface BenchEntry {
  root: number;
  dir: string;
  mtimeMs: number;
  size: number;
  bench: BoardBench;
  changed: number;
}

/** What changed since a version: rows and benches added or changed, ids removed. */
export interface BoardChanges {
  version: number;
  rows: BoardRow[];
  benches: BoardBench[];
  removed: string[];
}

/** The cache file's shape: per run folder (relative path) its manifest's mtime, size and row. */
interface CacheFile {
  schema: 'qitos.board-index';
  version: 1;
  root: string;
  runs: Array<[rel: string, mtimeMs: number, size: number, row: BoardRow | null, problem: string | null]>;
}

const CACHE_VERSION = 1;

/**
 * The runs and bench folders under the board's roots, kept up to date incrementally. A refresh lists the folders and
 * stats each run's manifest.json; only a manifest whose mtime or size changed (or a new one) is read again, and a
 * running run's steps.jsonl is read on from where the last refresh stopped. With a cache folder, the rows of the
 * manifests read are saved (one file per root), so a board started again over the same folders reads only what
 * changed since. Folders are walked without following symbolic links: only folders inside the roots are listed.
 */
export class BoardIndex {
  private readonly runs = new Map<string, RunEntry>();
  private readonly benches = new Map<string, BenchEntry>();
  private readonly removed: Array<{ id: string; at: number }> = [];
  private readonly cached: Array<Map<string, CacheFile['runs'][number]>>;
  private readonly depth: number;
  private refreshing: Promise<void> | undefined;
  private lastRefresh = 0;
  private dirtyRoots = new Set<number>();
  /** Bumped by every refresh that changed something. */
  version = 0;

  /** `roots` are absolute folders (their real paths: the board resolves them). */
  constructor(
    readonly roots: readonly string[],
    private readonly options: BoardIndexOptions = {},
  ) {
    this.depth = options.depth ?? 4;
    this.cached = roots.map((root) => this.loadCache(root));
  }

  /** The listed runs (in no order). */
  rows(): BoardRow[] {
    const out: BoardRow[] = [];
    for (const e of this.runs.values()) if (e.row) out.push(e.row);
    return out;
  }

  /** The bench folders. */
  benchList(): BoardBench[] {
    return [...this.benches.values()].map((b) => b.bench);
  }

  /** Manifests that are not listed, with the reason. */
  skipped(): string[] {
    const out: string[] = [];
    for (const e of this.runs.values()) if (e.problem) out.push(e.problem);
    return out;
  }

  /** The folder of a listed run (`id` as a row names it), or undefined: an id the index does not hold names no folder. */
  runDir(id: string): { dir: string; root: string; row: BoardRow } | undefined {
    const e = this.runs.get(id);
    return e?.row ? { dir: e.dir, root: this.roots[e.root], row: e.row } : undefined;
  }

  /** The folder of a listed bench folder, or undefined. */
  benchDir(id: string): { dir: string; root: string; bench: BoardBench } | undefined {
    const e = this.benches.get(id);
    return e ? { dir: e.dir, root: this.roots[e.root], bench: e.bench } : undefined;
  }

  /**
   * What changed after `since` (a version a client saw), or undefined when the index cannot say (0, a version it
   * never had, or one older than the removals it remembers): the client then takes the whole list.
   */
  changesSince(since: number): BoardChanges | undefined {
    if (since <= 0 || since > this.version || since < this.oldestKept) return undefined;
    const rows: BoardRow[] = [];
    for (const e of this.runs.values()) if (e.row && e.changed > since) rows.push(e.row);
    const benches: BoardBench[] = [];
    for (const b of this.benches.values()) if (b.changed > since) benches.push(b.bench);
    return { version: this.version, rows, benches, removed: this.removed.filter((r) => r.at > since).map((r) => r.id) };
  }

  /** Removals are remembered back to this version; a client older than it gets the whole list. */
  private oldestKept = 0;
  private lastSave = 0;

  /** Writes what the cache still lacks (the board calls it when it stops). */
  close(): void {
    this.saveCaches(true);
  }

  /**
   * Brings the index up to date with the folders; at most once per `maxAgeMs` (a refresh asked for sooner returns
   * at once), and one at a time (callers during a refresh wait for it).
   */
  async refresh(maxAgeMs = 0): Promise<void> {
    if (this.refreshing) return this.refreshing;
    if (maxAgeMs > 0 && Date.now() - this.lastRefresh < maxAgeMs) return;
    this.refreshing = this.scan().finally(() => {
      this.refreshing = undefined;
      this.lastRefresh = Date.now();
    });
    return this.refreshing;
  }

  private async scan(): Promise<void> {
    const next = this.version + 1;
    let changed = false;
    const seenRuns = new Set<string>();
    const seenBenches = new Set<string>();
    const unchecked: RunEntry[] = [];
    this.roots.forEach((root, i) => {
      const visit = (dir: string, rel: string, level: number, bench: string | null): void => {
        const id = `${i}/${rel}`;
        const manifest = statSync(join(dir, 'manifest.json'), { throwIfNoEntry: false });
        if (manifest?.isFile()) {
          seenRuns.add(id);
          if (this.visitRun(i, dir, rel, id, manifest.mtimeMs, manifest.size, bench, next, unchecked)) changed = true;
          return;
        }
        let entries: Dirent[];
        try {
          entries = readdirSync(dir, { withFileTypes: true });
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES') return; // gone, or not ours to read
          throw err;
        }
        let inBench = bench;
        if (entries.some((e) => e.isFile() && e.name === 'results.jsonl')) {
          seenBenches.add(id);
          inBench = id;
          if (this.visitBench(i, dir, rel, id, next)) changed = true;
        }
        if (level >= this.depth) return;
        for (const e of entries)
          if (e.isDirectory() && !e.name.startsWith('.'))
            visit(join(dir, e.name), rel ? `${rel}/${e.name}` : e.name, level + 1, inBench);
      };
      visit(root, '', 0, null);
    });
    for (const e of unchecked) {
      // listedFields could not check it: the schema decides (a shape the quick check does not know, or a reason)
      try {
        e.row = rowOf(await readManifest(e.dir), `${e.root}/${e.rel}`, e.rel || '.', e.row?.bench ?? null);
        e.problem = null;
      } catch (err) {
        if (!TraceError.isInstance(err)) throw err;
        e.row = null;
        e.problem = err.message;
      }
    }
    for (const [id, e] of this.runs)
      if (!seenRuns.has(id)) {
        this.runs.delete(id);
        this.removed.push({ id, at: next });
        this.dirtyRoots.add(e.root);
        changed = true;
      }
    for (const id of this.benches.keys())
      if (!seenBenches.has(id)) {
        this.benches.delete(id);
        this.removed.push({ id, at: next });
        changed = true;
      }
    // Keep the last 10,000 removals: a client that saw an older version reloads the whole list.
    if (this.removed.length > 10_000)
      this.oldestKept = this.removed.splice(0, this.removed.length - 10_000).reduce((v, r) => Math.max(v, r.at), 0);
    if (changed) this.version = next;
    // Cached rows serve the first refresh only: the index holds them after that.
    for (const c of this.cached) c.clear();
    this.saveCaches(this.lastSave === 0);
  }

  /** Updates one run folder's entry; true when its row changed. */
  private visitRun(
    root: number,
    dir: string,
    rel: string,
    id: string,
    mtimeMs: number,
    size: number,
    bench: string | null,
    version: number,
    unchecked: RunEntry[],
  ): boolean {
    const known = this.runs.get(id);
    if (known && known.mtimeMs === mtimeMs && known.size === size) {
      if (known.row?.status !== 'running' || !known.live) return false;
      return this.followSteps(known, version);
    }
    const entry: RunEntry = { root, rel, dir, mtimeMs, size, row: null, problem: null, changed: version };
    const hit = known ? undefined : this.cached[root].get(rel);
    if (hit && hit[1] === mtimeMs && hit[2] === size) {
      entry.row = hit[3];
      entry.problem = hit[4];
    } else {
      let text: string;
      try {
        text = readFileSync(join(dir, 'manifest.json'), 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false; // replaced between stat and read: next time
        throw err;
      }
      const row = boardRow(text, id, rel || '.', bench);
      if (row) entry.row = row;
      else unchecked.push(entry);
      this.dirtyRoots.add(root);
    }
    if (entry.row) entry.row.bench = bench;
    this.runs.set(id, entry);
    if (entry.row?.status === 'running') {
      entry.live = { bytes: 0, steps: 0, tokens: 0, cost: 0 };
      entry.row = { ...entry.row, steps: 0, tokens: 0, cost: 0 };
      this.followSteps(entry, version);
    }
    return true;
  }

  /** Reads on in a running run's steps.jsonl; true when it grew. */
  private followSteps(e: RunEntry, version: number): boolean {
    const file = join(e.dir, 'steps.jsonl');
    const st = statSync(file, { throwIfNoEntry: false });
    if (!st?.isFile() || !e.live || !e.row) return false;
    if (st.size < e.live.bytes) e.live = { bytes: 0, steps: 0, tokens: 0, cost: 0 }; // rewritten: read it again
    if (st.size === e.live.bytes) return false;
    const live = readLiveSteps(file, st.size, e.live);
    if (live === e.live) return false;
    e.live = live;
    e.row = { ...e.row, steps: live.steps, tokens: live.tokens, cost: live.cost };
    e.changed = version;
    return true;
  }

  /** Updates one bench folder's entry; true when it changed. */
  private visitBench(root: number, dir: string, rel: string, id: string, version: number): boolean {
    const st = statSync(join(dir, 'results.jsonl'), { throwIfNoEntry: false });
    const info = statSync(join(dir, 'run.json'), { throwIfNoEntry: false });
    const mtimeMs = Math.max(st?.mtimeMs ?? 0, info?.mtimeMs ?? 0);
    const size = (st?.size ?? 0) + (info?.size ?? 0);
    const known = this.benches.get(id);
    if (known && known.mtimeMs === mtimeMs && known.size === size) return false;
    this.benches.set(id, { root, dir, mtimeMs, size, bench: boardBench(dir, id, rel || '.'), changed: version });
    return true;
  }

  /** The cache file of a root. */
  private cacheFile(root: string): string | undefined {
    if (!this.options.cacheDir) return undefined;
    const name = createHash('sha256').update(root).digest('hex').slice(0, 24);
    return join(this.options.cacheDir, `${name}.json`);
  }

  /** A root's cached rows by relative path; an unreadable or foreign cache counts as none (it is rebuilt). */
  private loadCache(root: string): Map<string, CacheFile['runs'][number]> {
    const file = this.cacheFile(root);
    const out = new Map<string, CacheFile['runs'][number]>();
    if (!file) return out;
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || err instanceof SyntaxError) return out;
      throw err;
    }
    const c = parsed as Partial<CacheFile>;
    if (c?.schema !== 'qitos.board-index' || c.version !== CACHE_VERSION || c.root !== root || !Array.isArray(c.runs))
      return out;
    for (const r of c.runs) if (Array.isArray(r) && typeof r[0] === 'string') out.set(r[0], r);
    return out;
  }

  /**
   * Writes the cache file of every root whose rows changed (temp file and rename: a reader never sees half); at most
   * every 5 s unless `now` (a busy bench finishing runs every second would otherwise rewrite it every refresh).
   */
  private saveCaches(now: boolean): void {
    if (!this.options.cacheDir || !this.dirtyRoots.size) return;
    if (!now && Date.now() - this.lastSave < 5000) return;
    this.lastSave = Date.now();
    mkdirSync(this.options.cacheDir, { recursive: true, mode: 0o700 });
    for (const i of this.dirtyRoots) {
      const root = this.roots[i];
      const runs: CacheFile['runs'] = [];
      // a running run's row is cached too: its steps are read again from the start of steps.jsonl when it is loaded
      for (const e of this.runs.values()) if (e.root === i) runs.push([e.rel, e.mtimeMs, e.size, e.row, e.problem]);
      const file = this.cacheFile(root);
      if (!file) return;
      const body: CacheFile = { schema: 'qitos.board-index', version: CACHE_VERSION, root, runs };
      writeFileSync(`${file}.${process.pid}.tmp`, JSON.stringify(body), { mode: 0o600 });
      renameSync(`${file}.${process.pid}.tmp`, file);
    }
    this.dirtyRoots.clear();
  }
}
