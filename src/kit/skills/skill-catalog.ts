import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { parseSkillFile, type SkillFile } from './skill-file.js';

/** A skill found on disk. */
export interface Skill extends SkillFile {
  /** The folder that holds SKILL.md (its real path). */
  dir: string;
  /** The SKILL.md path. */
  path: string;
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
    for (const path of await findSkillFiles(await realpath(abs), 0)) {
      const parsed = parseSkillFile(await readFile(path, 'utf8'));
      if ('error' in parsed) {
        skipped.push({ path, reason: parsed.error });
        continue;
      }
      const taken = byName.get(parsed.name);
      if (taken) {
        skipped.push({ path, reason: `name "${parsed.name}" is already taken by ${taken.path}` });
        continue;
      }
      byName.set(parsed.name, { ...parsed, dir: join(path, '..'), path });
    }
  }
  const skills = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  return { skills, skipped, get: (name) => byName.get(name) };
}

async function findSkillFiles(dir: string, depth: number): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const own = entries.find((e) => e.isFile() && e.name === 'SKILL.md');
  // A skill folder's own sub-folders are its resources, not more skills.
  if (own) return [join(dir, own.name)];
  if (depth >= MAX_DEPTH) return [];
  const out: string[] = [];
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.isDirectory() && !IGNORED.has(e.name) && !e.name.startsWith('.')) out.push(...(await findSkillFiles(join(dir, e.name), depth + 1)));
  }
  return out;
}

/** Files of a skill folder (relative paths, sorted), at most `limit`, for the model to know what it may read. */
export async function skillFiles(skill: Skill, limit = 50): Promise<{ files: string[]; more: number }> {
  const all: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    for (const e of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(dir, e.name);
      if (e.isFile() && p !== skill.path) all.push(relative(skill.dir, p));
      else if (e.isDirectory() && depth < 4 && !IGNORED.has(e.name) && !e.name.startsWith('.')) await walk(p, depth + 1);
    }
  };
  await walk(skill.dir, 0);
  return { files: all.slice(0, limit), more: Math.max(0, all.length - limit) };
}
