import { createHash } from 'node:crypto';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { parseSkillFile, type SkillFile } from './skill-file.js';

/** A skill found on disk. */
export interface Skill extends SkillFile {
  /** The folder that holds SKILL.md (its real path). */
  dir: string;
  /** The SKILL.md path. */
  path: string;
  /** SHA-256 (hex) of the SKILL.md bytes: retrieval re-indexes a skill when it changes. */
  hash: string;
}

/** A SKILL.md that was found but not loaded, and why. */
export interface SkippedSkill {
  path: string;
  reason: string;
}

/** The skills of some roots, by name. Built by `loadSkills`; no global registry. */
export interface SkillCatalog {
  readonly skills: readonly Skill[];
  readonly skipped: readonly SkippedSkill[];
  /** The skill of that name; names match case-insensitively and ignore surrounding spaces. */
  get(name: string): Skill | undefined;
}

/** How deep below a root SKILL.md files are looked for (a root may be a skill itself, or hold skill folders). */
const MAX_DEPTH = 3;
const IGNORED = new Set(['node_modules', '.git']);

/**
 * Finds every SKILL.md under the given roots (a root may itself be a skill folder), parses it and returns the
 * catalog. Files without valid frontmatter are skipped with a reason, never silently; a second skill with a name
 * already taken (an earlier root wins) is skipped as shadowed. Symbolic links are not followed. A root that does
 * not exist is an error naming it.
 */
export async function loadSkills(roots: readonly string[]): Promise<SkillCatalog> {
  const byName = new Map<string, Skill>();
  const skipped: SkippedSkill[] = [];
  for (const root of roots) {
    const abs = resolve(root);
    const st = await stat(abs).catch(() => undefined);
    if (!st?.isDirectory()) throw new Error(`skills root ${abs} is not a folder`);
    const paths = await findSkillFiles(await realpath(abs), 0);
    const contents = await inBatches(paths, (p) => readFile(p));
    for (const [i, path] of paths.entries()) {
      const bytes = contents[i];
      const parsed = parseSkillFile(bytes.toString('utf8'));
      if ('error' in parsed) {
        skipped.push({ path, reason: parsed.error });
        continue;
      }
      const taken = byName.get(parsed.name);
      if (taken) {
        skipped.push({ path, reason: `name "${parsed.name}" is already taken by ${taken.path}` });
        continue;
      }
      byName.set(parsed.name, {
        ...parsed,
        dir: join(path, '..'),
        path,
        hash: createHash('sha256').update(bytes).digest('hex'),
      });
    }
  }
  const skills = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  return catalogOf(skills, skipped);
}

/** A catalog over the given skills (names are unique, as `loadSkills` makes them). */
export function catalogOf(skills: readonly Skill[], skipped: readonly SkippedSkill[] = []): SkillCatalog {
  const byName = new Map(skills.map((s) => [s.name, s]));
  return { skills, skipped, get: (name) => byName.get(name.trim().toLowerCase()) };
}

/**
 * Why no skill of this name can be used, for an error the model or a user reads: the SKILL.md files that failed
 * to load under that name (with file and reason), then up to `max` similar names ("did you mean"), then the
 * available names when there are few.
 */
export function unknownSkillMessage(catalog: SkillCatalog, name: string, max = 3): string {
  const wanted = name.trim().toLowerCase();
  const broken = catalog.skipped.filter((s) => s.path.split(/[\\/]/).at(-2)?.toLowerCase() === wanted);
  const parts = [`Unknown skill "${name}".`];
  for (const b of broken) parts.push(`${b.path} could not be loaded: ${b.reason}.`);
  const close = similarNames(
    catalog.skills.map((s) => s.name),
    wanted,
    max,
  );
  if (close.length) parts.push(`Did you mean: ${close.join(', ')}?`);
  else
    parts.push(
      `Available skills: ${
        catalog.skills.length
          ? catalog.skills
              .map((s) => s.name)
              .slice(0, 20)
              .join(', ') + (catalog.skills.length > 20 ? ', ...' : '')
          : '(none)'
      }.`,
    );
  return parts.join(' ');
}

/** Names close to `wanted`: containing it or contained in it, or within an edit distance of a third of its length. */
export function similarNames(names: readonly string[], wanted: string, max = 3): string[] {
  const w = wanted.trim().toLowerCase();
  if (!w) return [];
  const limit = Math.max(1, Math.floor(w.length / 3));
  return names
    .map((n) => ({ n, d: n.includes(w) || w.includes(n) ? 0 : editDistance(n, w, limit) }))
    .filter((x) => x.d <= limit)
    .sort((a, b) => a.d - b.d || a.n.localeCompare(b.n))
    .slice(0, max)
    .map((x) => x.n);
}

/** Levenshtein distance, stopping early once every path exceeds `limit` (then any value above it is returned). */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, cur[j]);
    }
    if (best > limit) return limit + 1;
    prev = cur;
  }
  return prev[b.length];
}

async function findSkillFiles(dir: string, depth: number): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const own = entries.find((e) => e.isFile() && e.name === 'SKILL.md');
  // A skill folder's own sub-folders are its resources, not more skills.
  if (own) return [join(dir, own.name)];
  if (depth >= MAX_DEPTH) return [];
  const folders = entries
    .filter((e) => e.isDirectory() && !IGNORED.has(e.name) && !e.name.startsWith('.'))
    .sort((a, b) => a.name.localeCompare(b.name));
  return (await inBatches(folders, (e) => findSkillFiles(join(dir, e.name), depth + 1))).flat();
}

/** Files and folders handled at once: a root of thousands of skills is read in parallel, within a bounded number of open files. */
const BATCH = 64;

/** `fn` over `items`, `BATCH` at a time, results in the order of `items`. */
async function inBatches<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += BATCH) out.push(...(await Promise.all(items.slice(i, i + BATCH).map(fn))));
  return out;
}

/** Files of a skill folder (relative paths, sorted), at most `limit`, for the model to know what it may read. */
export async function skillFiles(skill: Skill, limit = 50): Promise<{ files: string[]; more: number }> {
  const all: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    for (const e of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(dir, e.name);
      if (e.isFile() && p !== skill.path) all.push(relative(skill.dir, p));
      else if (e.isDirectory() && depth < 4 && !IGNORED.has(e.name) && !e.name.startsWith('.'))
        await walk(p, depth + 1);
    }
  };
  await walk(skill.dir, 0);
  return { files: all.slice(0, limit), more: Math.max(0, all.length - limit) };
}
