import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { EmbeddingModel } from '../../core/index.js';
import { loadSkills, unknownSkillMessage, type Skill, type SkillCatalog } from './skill-catalog.js';
import { parseSkillFile, withDescription } from './skill-file.js';
import { extractSkillZip, type SkillZipLimits } from './skill-zip.js';
import { clearJournal, scratchDir, withRootLock, writeJournal } from './skills-root-state.js';
import { ToolRetrievalService, type SkillMatch, type SyncReport } from './tool-retrieval-service.js';

/** Options of a SkillManager. */
export interface SkillManagerOptions {
  /** Embedder of the retrieval index (default: the offline hashing embedder). */
  embedder?: EmbeddingModel;
  /** Limits on what an installed ZIP may unpack to. */
  limits?: SkillZipLimits;
  /** How long a mutation waits for another process holding the root's lock (default 10 s). */
  lockTimeoutMs?: number;
  /**
   * Called after each step of a mutation (`unpacked`, `moved`, `indexed`, ...): progress for a UI, and the
   * points at which the crash tests stop a process.
   */
  onStep?: (step: SkillStep, name: string) => void | Promise<void>;
}

/** The steps a mutation reports through `onStep`, in order. */
export type SkillStep = 'unpacked' | 'journaled' | 'moved-aside' | 'moved' | 'described' | 'indexed';

/** An installed skill as `list` reports it. */
export interface InstalledSkill {
  name: string;
  description: string;
  /** The skill folder, `<root>/<name>`. */
  dir: string;
  license?: string;
  allowedTools?: string | string[];
  metadata?: Record<string, unknown>;
  /** SHA-256 of its SKILL.md. */
  hash: string;
}

/** What `install` and `update` did. */
export interface InstallResult {
  skill: InstalledSkill;
  /** Files and bytes unpacked (0 for a description update). */
  files: number;
  bytes: number;
  replaced: boolean;
}

/**
 * The lifecycle of the skills under one root folder (`<root>/<name>/SKILL.md`): install from a ZIP, update (the
 * description, or the whole skill from a new ZIP), uninstall, list, and search through the retrieval index it
 * keeps in step. Every mutation holds the root's lock and is all-or-nothing across crashes: a ZIP is unpacked
 * and checked in `.qitos/staging/` and moved into place with one rename; an uninstall is one rename into
 * `.qitos/trash/`; a replace is journaled; a description is written to a temporary file and renamed over
 * SKILL.md. The index is derived data: it is updated after the folders, and a crash in between is repaired by
 * the content-hash sync at the next open or mutation.
 */
export class SkillManager {
  private constructor(
    readonly root: string,
    readonly retrieval: ToolRetrievalService,
    private readonly options: SkillManagerOptions,
  ) {}

  /** Opens a skills root (created when missing), settles any interrupted mutation and syncs the index. */
  static async open(root: string, options: SkillManagerOptions = {}): Promise<SkillManager> {
    const st = await stat(resolve(root)).catch(() => undefined);
    if (st && !st.isDirectory()) throw new Error(`skills root ${resolve(root)} is not a folder`);
    await mkdir(resolve(root), { recursive: true });
    const { service } = await ToolRetrievalService.open(root, {
      embedder: options.embedder,
      timeoutMs: options.lockTimeoutMs,
    });
    return new SkillManager(service.root, service, options);
  }

  /**
   * Installs a skill from a ZIP (a file path or its bytes). The ZIP holds exactly one SKILL.md, at its root or in
   * its single top folder; the skill's folder is `<root>/<name>` after its frontmatter name. A name already
   * installed is an error unless `replace` (the same as `update(name, { zip })`).
   */
  async install(zip: string | Uint8Array, options: { replace?: boolean } = {}): Promise<InstallResult> {
    const source = typeof zip === 'string' ? resolve(zip) : zip;
    const label = typeof source === 'string' ? basename(source) : 'the ZIP';
    return this.locked(() =>
      this.staged('install', async (staging) => {
        const unpacked = await extractSkillZip(source, staging, this.options.limits);
        const text = await readFile(join(unpacked.skillDir, 'SKILL.md'), 'utf8');
        const parsed = parseSkillFile(text);
        if ('error' in parsed) throw new Error(`${label}: SKILL.md ${parsed.error}`);
        const target = join(this.root, parsed.name);
        const exists = (await stat(target).catch(() => undefined)) !== undefined;
        if (exists && !options.replace)
          throw new Error(`skill "${parsed.name}" is already installed in ${target}; use update to replace it`);
        await this.step('unpacked', parsed.name);
        if (exists) await this.replaceFolder(target, unpacked.skillDir, parsed.name);
        else {
          await rename(unpacked.skillDir, target);
          await this.step('moved', parsed.name);
        }
        const skill = await this.reindex(parsed.name);
        return { skill: installed(skill), files: unpacked.files, bytes: unpacked.bytes, replaced: exists };
      }),
    );
  }

  /**
   * Updates an installed skill: `description` rewrites only the frontmatter description of its SKILL.md (other
   * fields, comments and the body are kept); `zip` replaces the whole skill with a new ZIP of the same name.
   * Either way the index is updated.
   */
  async update(name: string, change: { description?: string; zip?: string | Uint8Array }): Promise<InstallResult> {
    if ((change.description === undefined) === (change.zip === undefined))
      throw new Error('update needs exactly one of: a new description, or a ZIP to replace the skill with');
    if (change.zip !== undefined) {
      const source = typeof change.zip === 'string' ? resolve(change.zip) : change.zip;
      return this.locked(() =>
        this.staged('update', async (staging) => {
          const skill = await this.find(name);
          const unpacked = await extractSkillZip(source, staging, this.options.limits);
          const parsed = parseSkillFile(await readFile(join(unpacked.skillDir, 'SKILL.md'), 'utf8'));
          if ('error' in parsed) throw new Error(`the new ZIP's SKILL.md ${parsed.error}`);
          if (parsed.name !== skill.name)
            throw new Error(
              `the new ZIP holds skill "${parsed.name}", not "${skill.name}"; install it as a new skill instead`,
            );
          await this.step('unpacked', skill.name);
          await this.replaceFolder(skill.dir, unpacked.skillDir, skill.name);
          return {
            skill: installed(await this.reindex(skill.name)),
            files: unpacked.files,
            bytes: unpacked.bytes,
            replaced: true,
          };
        }),
      );
    }
    return this.locked(async () => {
      const skill = await this.find(name);
      const path = join(skill.dir, 'SKILL.md');
      const text = withDescription(await readFile(path, 'utf8'), change.description!);
      const tmp = join(skill.dir, `.SKILL.md.${randomBytes(4).toString('hex')}.tmp`);
      await writeFile(tmp, text, { flag: 'wx' });
      await rename(tmp, path);
      await this.step('described', skill.name);
      return { skill: installed(await this.reindex(skill.name)), ...(await folderSize(skill.dir)), replaced: false };
    });
  }

  /** Removes an installed skill: its folder and its index entry. */
  async uninstall(name: string): Promise<InstalledSkill> {
    return this.locked(async () => {
      const skill = await this.find(name);
      const trash = await scratchDir(this.root, 'trash', skill.name);
      await rename(skill.dir, trash); // from here on the skill is gone
      await this.step('moved', skill.name);
      await this.retrieval.apply([], [skill.name]);
      await this.step('indexed', skill.name);
      await rm(trash, { recursive: true, force: true });
      return installed(skill);
    });
  }

  /** The installed skills, by name, with their metadata; and the SKILL.md files that are not valid skills. */
  async list(): Promise<{ skills: InstalledSkill[]; skipped: SkillCatalog['skipped'] }> {
    const catalog = await loadSkills([this.root]);
    return { skills: catalog.skills.map(installed), skipped: catalog.skipped };
  }

  /** The installed skills closest in meaning to `query` (see ToolRetrievalService.search). */
  search(query: string, options: { top?: number; threshold?: number } = {}): Promise<SkillMatch[]> {
    return this.retrieval.search(query, options);
  }

  /** Re-syncs the index with the folders (after edits made outside the manager). */
  sync(): Promise<SyncReport> {
    return this.locked(() => this.retrieval.syncLocked());
  }

  private async find(name: string): Promise<Skill> {
    const catalog = await loadSkills([this.root]);
    const skill = catalog.get(name);
    if (!skill || resolve(skill.dir, '..') !== this.root) throw new Error(unknownSkillMessage(catalog, name));
    return skill;
  }

  /**
   * Replaces a skill folder with a new one, journaled: old folder aside into trash, new folder into place. A
   * crash between the two renames is rolled back (old folder restored) by the next lock holder.
   */
  private async replaceFolder(target: string, next: string, name: string): Promise<void> {
    const old = await scratchDir(this.root, 'trash', name);
    await writeJournal(this.root, { op: 'replace', target, old, next });
    await this.step('journaled', name);
    await rename(target, old);
    await this.step('moved-aside', name);
    await rename(next, target);
    await this.step('moved', name);
    await clearJournal(this.root);
    await rm(old, { recursive: true, force: true });
  }

  /** Indexes one skill after its folder changed. */
  private async reindex(name: string): Promise<Skill> {
    const skill = (await loadSkills([this.root])).get(name);
    if (!skill) throw new Error(`skill "${name}" vanished from ${this.root} while it was being installed`);
    await this.retrieval.apply([skill], []);
    await this.step('indexed', name);
    return skill;
  }

  /** Runs `fn` with a fresh staging folder that is removed afterwards, whatever happens (a failed install leaves nothing). */
  private async staged<T>(label: string, fn: (staging: string) => Promise<T>): Promise<T> {
    const staging = await scratchDir(this.root, 'staging', label);
    await mkdir(staging);
    try {
      return await fn(staging);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }

  private locked<T>(fn: () => Promise<T>): Promise<T> {
    return withRootLock(this.root, fn, { timeoutMs: this.options.lockTimeoutMs });
  }

  private async step(step: SkillStep, name: string): Promise<void> {
    await this.options.onStep?.(step, name);
  }
}

function installed(s: Skill): InstalledSkill {
  const fm = s.frontmatter;
  return {
    name: s.name,
    description: s.description,
    dir: s.dir,
    ...(fm.license !== undefined ? { license: fm.license } : {}),
    ...(fm['allowed-tools'] !== undefined ? { allowedTools: fm['allowed-tools'] } : {}),
    ...(fm.metadata !== undefined ? { metadata: fm.metadata } : {}),
    hash: s.hash,
  };
}

/** The files of an installed skill folder and their total size (what an install reports), its links not followed. */
async function folderSize(dir: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    files++;
    bytes += (await stat(join(e.parentPath, e.name))).size;
  }
  return { files, bytes };
}
