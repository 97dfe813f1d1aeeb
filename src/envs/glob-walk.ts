import type { GlobMatcher } from './glob-pattern.js';

/** One entry of a folder, as the glob walk needs it. */
export interface WalkEntry {
  name: string;
  kind: 'file' | 'directory' | 'symlink';
}

/** What the walk needs from a file tree: the entries of a folder given by its `/`-joined relative path. */
export type ListFolder = (relDir: string) => Promise<WalkEntry[]>;

/**
 * Walks a tree depth-first in name order and returns the relative paths of files (and symlinks) that match.
 * Deterministic: the same tree gives the same list. Prunes folders no match can be below (outside the
 * pattern's literal base, deeper than its depth), dot folders unless the pattern names a dot entry, and the
 * `ignore` folder names unless the pattern names them. Symlinked folders are not descended into, so a walk
 * neither loops nor leaves the tree.
 */
export async function walkGlob(
  matcher: GlobMatcher,
  list: ListFolder,
  options: { limit?: number; ignore?: ReadonlySet<string>; signal?: AbortSignal } = {},
): Promise<string[]> {
  const limit = options.limit ?? Infinity;
  const base = matcher.base ? matcher.base.split('/') : [];
  const out: string[] = [];
  const visit = async (dir: string[]): Promise<void> => {
    options.signal?.throwIfAborted();
    const entries = (await list(dir.join('/'))).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (out.length >= limit) return;
      if (e.name.startsWith('.') && !matcher.dotted) continue;
      const segs = [...dir, e.name];
      const rel = segs.join('/');
      if (e.kind === 'directory') {
        if (options.ignore?.has(e.name) && !matcher.literals.has(e.name)) continue;
        if (!mayHoldMatches(segs, base, matcher.maxDepth)) continue;
        await visit(segs);
      } else if (matcher.test(rel)) {
        out.push(rel);
      }
    }
  };
  await visit([]);
  return out;
}

function mayHoldMatches(dir: string[], base: string[], maxDepth: number): boolean {
  const n = Math.min(dir.length, base.length);
  for (let i = 0; i < n; i++) if (dir[i] !== base[i]) return false;
  // Files directly in `dir` sit at depth dir.length + 1 below the walk root.
  return dir.length + 1 - base.length <= maxDepth;
}
