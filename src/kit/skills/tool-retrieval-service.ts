import { createHash, randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, readdir, realpath, rename, rm, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { EmbeddingModel } from '../../core/index.js';
import { checkEmbeddings, errorMessage } from '../../core/index.js';
import { VectorMatrix, hashingEmbedder } from '../../models/embedders/index.js';
import { loadSkills, type Skill, type SkillCatalog } from './skill-catalog.js';
import { needsSettling, stateDir, withRootLock, type RootLockOptions } from './skills-root-state.js';
import { decodeVector, encodeVector, parseSkillIndex, type SkillIndexFile } from './skill-index-file.js';

/** A skill found for a query, with its cosine similarity to the query. */
export interface SkillMatch {
  name: string;
  description: string;
  /** Cosine similarity of the query and the skill's name + description, in [-1, 1]; higher is closer. */
  score: number;
  /** The SKILL.md path. */
  path: string;
}

/** What a sync changed in the index. */
export interface SyncReport {
  added: string[];
  updated: string[];
  removed: string[];
  /** Set when the index file could not be read and was rebuilt from the skill folders (with the reason). */
  rebuilt?: string;
}

/** Options of a ToolRetrievalService. */
export interface ToolRetrievalOptions extends RootLockOptions {
  /** Default: the offline hashing embedder. */
  embedder?: EmbeddingModel;
}

/** What an index item carries besides its vector. */
type ItemMeta = { name: string; description: string; hash: string; path: string };

/**
 * Finds skills by meaning: the name and description of every skill under a root are embedded and kept in
 * `<root>/.qitos/index/<embedder>/index.json` (see {@link SkillIndexFile}: vectors quantised to 8 bits, base64), one
 * index per embedder (switching embedders never mixes vectors). Saves are atomic (temporary file, fsync, rename). The
 * index follows the folders: `open` and `sync` re-embed every skill whose SKILL.md content
 * hash changed, add new ones and drop removed ones, under the root's lock; SkillManager calls `upsert`/`remove`
 * on install, update and uninstall. `search` reloads the index when another process changed it. A damaged
 * index file is rebuilt from the folders (the report says so), never trusted.
 */
export class ToolRetrievalService {
  readonly root: string;
  readonly embedder: EmbeddingModel;
  readonly indexDir: string;
  /** Problems the service recovered from by itself (a damaged index rebuilt during a search), for callers to show. */
  readonly warnings: string[] = [];
  /** The index as last read or written (vectors still encoded: decoded into one matrix on the first search). */
  private index: SkillIndexFile = emptyIndex();
  private matrix: { matrix: VectorMatrix; meta: ItemMeta[] } | undefined;
  /** Size, mtime and inode of index.json as last read or written: a difference means another process wrote it. */
  private seen = '';

  private constructor(
    root: string,
    embedder: EmbeddingModel,
    private readonly lockOptions: RootLockOptions,
  ) {
    this.root = root;
    this.embedder = embedder;
    this.indexDir = join(stateDir(root), 'index', indexFolderName(embedder.id));
  }

  /** Opens (and creates) the index of the skills under `root` and syncs it with the folders. */
  static async open(
    root: string,
    options: ToolRetrievalOptions = {},
  ): Promise<{ service: ToolRetrievalService; report: SyncReport }> {
    const st = await stat(resolve(root)).catch(() => undefined);
    if (!st?.isDirectory()) throw new Error(`skills root ${resolve(root)} is not a folder`);
    // The real path: skill folders found under it are real paths too, and are compared with it.
    const abs = await realpath(resolve(root));
    const service = new ToolRetrievalService(abs, options.embedder ?? hashingEmbedder(), {
      timeoutMs: options.timeoutMs,
    });
    await createIndex(service.indexDir);
    const report = await service.sync();
    return { service, report };
  }

  /**
   * Brings the index in line with the skill folders. Takes the root's lock only when something must change
   * (a read-only root whose index is current can be searched) or the index is empty, and then first settles any
   * mutation a crashed process left half done, so the index never records a half-way state.
   */
  async sync(): Promise<SyncReport> {
    // An empty (new) index will be written anyway: lock at once instead of reading every SKILL.md twice.
    const empty =
      (await this.size().catch(() => 0)) === 0 &&
      (await readdir(this.root, { withFileTypes: true })).some((e) => e.isDirectory() && !e.name.startsWith('.'));
    if (!empty && !(await needsSettling(this.root))) {
      const pending = await this.diff(await loadSkills([this.root]));
      if (!pending.stale.length && !pending.gone.length && !pending.damaged)
        return { added: [], updated: [], removed: [] };
    }
    return withRootLock(this.root, () => this.syncLocked(), this.lockOptions);
  }

  /**
   * Sync for a caller that already holds the root's lock (SkillManager). Re-reads index and folders first:
   * another process may have changed either since this instance last looked.
   */
  async syncLocked(): Promise<SyncReport> {
    const catalog = await loadSkills([this.root]);
    const { stale, gone, damaged, known } = await this.diff(catalog, true);
    const report: SyncReport = {
      added: stale.filter((s) => !known.has(s.name)).map((s) => s.name),
      updated: stale.filter((s) => known.has(s.name)).map((s) => s.name),
      removed: gone,
      ...(damaged ? { rebuilt: damaged } : {}),
    };
    await this.write(stale, gone);
    return report;
  }

  /**
   * Embeds and stores `add` (new or changed skills) and drops `remove`, in one save. Caller holds the root's
   * lock. When the index cannot be read it is rebuilt from the folders instead (see `syncLocked`).
   */
  async apply(add: readonly Skill[], remove: readonly string[]): Promise<SyncReport> {
    try {
      await this.reloadIfChanged();
    } catch {
      return this.syncLocked();
    }
    await this.write(add, remove);
    return { added: add.map((s) => s.name), updated: [], removed: [...remove] };
  }

  /** How many skills the index holds. */
  async size(): Promise<number> {
    await this.reloadIfChanged();
    return this.index.items.length;
  }

  /**
   * The `top` skills closest in meaning to `query`, best first, each with its score; only those scoring at least
   * `threshold` (default: no threshold). Ties break by name, so the same index gives the same answer.
   */
  async search(query: string, options: { top?: number; threshold?: number } = {}): Promise<SkillMatch[]> {
    const top = options.top ?? 5;
    if (!Number.isInteger(top) || top < 1) throw new Error(`top must be a positive integer, got ${top}`);
    if (!query.trim()) throw new Error('the search query is empty: say what the skill should do');
    await this.reloadIfChanged().catch(async () => {
      const report = await this.sync(); // rebuilds the damaged index under the lock
      if (report.rebuilt) this.warnings.push(report.rebuilt);
    });
    const [vector] = checkEmbeddings(this.embedder, 1, await this.embedder.embed([query]));
    const { matrix, meta } = await this.vectors();
    // A few more than asked, so equal scores at the cut are ordered by name, not by insertion order.
    return matrix
      .top(vector, top + 8)
      .map(({ row, score }) => ({
        name: meta[row].name,
        description: meta[row].description,
        score: round(score, 6),
        path: join(this.root, meta[row].path),
      }))
      .filter((m) => m.score >= (options.threshold ?? -Infinity))
      .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))
      .slice(0, top);
  }

  /** What differs between the index and the folders. `reload` re-reads index.json first. */
  private async diff(
    catalog: SkillCatalog,
    reload = false,
  ): Promise<{ stale: Skill[]; gone: string[]; damaged?: string; known: Set<string> }> {
    let damaged: string | undefined;
    try {
      if (reload) await this.reload();
      else await this.reloadIfChanged();
    } catch (err) {
      damaged = `the index in ${this.indexDir} could not be read (${errorMessage(err)}); it was rebuilt from the skill folders`;
      if (reload) {
        await rm(this.indexDir, { recursive: true, force: true });
        await createIndex(this.indexDir);
        this.index = emptyIndex();
      }
    }
    const items = damaged ? [] : this.index.items;
    const known = new Map(items.map((i) => [i.name, i]));
    const stale = catalog.skills.filter((s) => {
      const m = known.get(s.name);
      return !m || m.hash !== storedHash(s.hash) || join(this.root, m.path) !== s.path;
    });
    const present = new Set(catalog.skills.map((s) => s.name));
    const gone = [...known.keys()].filter((n) => !present.has(n));
    return { stale, gone, damaged, known: new Set(known.keys()) };
  }

  /** Embeds `add` in one batch, then applies adds and removals as one index update (one atomic file write). */
  private async write(add: readonly Skill[], drop: readonly string[]): Promise<void> {
    if (!add.length && !drop.length) return;
    const vectors = add.length
      ? checkEmbeddings(this.embedder, add.length, await this.embedder.embed(add.map(skillText)))
      : [];
    const dims = vectors[0]?.length ?? this.index.dims;
    if (this.index.items.length && vectors.length && dims !== this.index.dims)
      throw new Error(
        `the embedder returned vectors of length ${dims}; this index holds vectors of length ${this.index.dims}`,
      );
    const gone = new Set([...drop, ...add.map((s) => s.name)]);
    const items = this.index.items.filter((i) => !gone.has(i.name));
    add.forEach((s, i) =>
      items.push({
        name: s.name,
        description: s.description,
        hash: storedHash(s.hash),
        // relative to the root: shorter, and the index stays valid when the root folder moves
        path: relative(this.root, s.path),
        v: encodeVector(vectors[i]),
      }),
    );
    const next: SkillIndexFile = { format: 'qitos-skills-index', version: 2, dims: items.length ? dims : 0, items };
    await writeAtomically(join(this.indexDir, 'index.json'), JSON.stringify(next));
    this.index = next;
    this.matrix = undefined;
    this.seen = await fileStamp(join(this.indexDir, 'index.json'));
  }

  private async reloadIfChanged(): Promise<void> {
    const stamp = await fileStamp(join(this.indexDir, 'index.json'));
    if (stamp === 'none') throw new Error(`${join(this.indexDir, 'index.json')} is missing`);
    if (stamp !== this.seen) await this.reload();
  }

  /** Reads index.json again; on a damaged file the previous index and stamp are kept, so the next call fails too. */
  private async reload(): Promise<void> {
    const path = join(this.indexDir, 'index.json');
    const stamp = await fileStamp(path);
    this.index = parseSkillIndex(await readFile(path, 'utf8'));
    this.matrix = undefined;
    this.seen = stamp;
  }

  /** The index's vectors decoded into one matrix for scanning (on the first search after a load or a write). */
  private async vectors(): Promise<{ matrix: VectorMatrix; meta: ItemMeta[] }> {
    if (!this.matrix) {
      const { items, dims } = this.index;
      this.matrix = {
        matrix: VectorMatrix.fromRows(items.length, dims, (data, offset, row) =>
          decodeVector(items[row].v, dims, data, offset),
        ),
        meta: items,
      };
    }
    return this.matrix;
  }
}

/** The text embedded for a skill: its name in words, then its description. */
function skillText(s: Skill): string {
  return `${s.name.replace(/-/g, ' ')}: ${s.description}`;
}

function round(x: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(x * f) / f;
}

/** `<slug>-<hash>`: readable, file-system safe, and distinct for distinct embedder ids. */
function indexFolderName(id: string): string {
  const slug = id
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40);
  return `${slug}-${createHash('sha256').update(id).digest('hex').slice(0, 10)}`;
}

async function fileStamp(path: string): Promise<string> {
  const st = await stat(path, { bigint: true }).catch(() => undefined);
  return st ? `${st.size}:${st.mtimeNs}:${st.ino}` : 'none';
}

/** A SKILL.md's sha-256 as the index stores it: base64url (43 characters instead of 64 hex ones). */
function storedHash(hex: string): string {
  return /^[0-9a-f]{64}$/.test(hex) ? Buffer.from(hex, 'hex').toString('base64url') : hex;
}

function emptyIndex(): SkillIndexFile {
  return { format: 'qitos-skills-index', version: 2, dims: 0, items: [] };
}

/** Creates an empty index.json in `dir` when there is none (without ever replacing one another process made). */
async function createIndex(dir: string): Promise<void> {
  const path = join(dir, 'index.json');
  if (await stat(path).catch(() => undefined)) return;
  await mkdir(dir, { recursive: true });
  const tmp = await writeTemp(path, JSON.stringify(emptyIndex()));
  // link, unlike rename, fails when the target exists: a concurrent creator's index is kept.
  await link(tmp, path).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST')
      throw new Error(`cannot create the skills index in ${dir}: ${errorMessage(err)}`, { cause: err });
  });
  await rm(tmp, { force: true });
}

/** Writes `text` to a fresh temporary file next to `path`, synced; returns its path. */
async function writeTemp(path: string, text: string): Promise<string> {
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  const fh = await open(tmp, 'wx');
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
  return tmp;
}

async function writeAtomically(path: string, text: string): Promise<void> {
  await rename(await writeTemp(path, text), path);
}
