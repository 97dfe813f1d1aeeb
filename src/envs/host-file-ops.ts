import { constants } from 'node:fs';
import { lstat, open, readdir, rmdir, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { FileOps, FileStat } from '../core/index.js';
import { EnvError } from '../core/index.js';
import { DirAnchors, type AnchoredDir } from './anchored-dir.js';
import { fsError } from './fs-error.js';
import { compileGlob } from './glob-pattern.js';
import { walkGlob, type WalkEntry } from './glob-walk.js';
import { namesInside } from './hard-links.js';
import { landingPath, resolveLexical, type PathJail } from './path-jail.js';

// O_NOFOLLOW: the last component is never a symlink (the folders above are held open, see AnchoredDir).
// O_NONBLOCK: opening a FIFO (e.g. one a command made with mkfifo) would otherwise wait for a writer (or reader)
// forever, holding a libuv pool thread; with it the open returns and the type check below refuses the FIFO.
// On a regular file O_NONBLOCK changes nothing.
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * File ops on the host disk, every path through the workspace jail. Paths in answers are root-relative,
 * `/`-separated. A path is resolved by the {@link PathJail}; then the folder that holds the entry is opened
 * and checked as an {@link AnchoredDir}, and the entry is reached through that folder's descriptor, so a
 * folder swapped for a symlink after the check cannot redirect the operation. Writes refuse a file with a
 * hard link outside the workspace.
 */
export class HostFileOps implements FileOps {
  private readonly anchors: DirAnchors;

  constructor(
    private readonly jail: PathJail,
    private readonly ignoreDirs: ReadonlySet<string>,
  ) {
    this.anchors = new DirAnchors(jail);
  }

  get root(): string {
    return this.jail.root;
  }

  async readBytes(p: string): Promise<Uint8Array> {
    const abs = await this.jail.resolve(p);
    const shown = this.jail.show(abs);
    return this.inParent(abs, shown, 'read', async (dir, name) => {
      const fh = await open(dir.at(name), READ_FLAGS);
      try {
        await requireRegularFile(fh, shown, 'read');
        return new Uint8Array(await fh.readFile());
      } finally {
        await fh.close();
      }
    });
  }

  async readText(p: string): Promise<string> {
    return new TextDecoder('utf-8').decode(await this.readBytes(p));
  }

  async writeText(p: string, content: string): Promise<void> {
    if (typeof content !== 'string') throw new EnvError(`content to write must be a string, got ${typeof content}`);
    const abs = await this.jail.resolve(p);
    if (abs === this.jail.root) throw new EnvError('cannot write ".": it is the workspace root folder');
    const shown = this.jail.show(abs);
    let dir: AnchoredDir | undefined;
    try {
      dir = await this.anchors.create(path.dirname(abs));
      const fh = await open(dir.at(path.basename(abs)), WRITE_FLAGS, 0o644);
      try {
        // Truncate only once it is known to be a regular file (O_TRUNC in the open would act before the check).
        const st = await requireRegularFile(fh, shown, 'write');
        if (st.nlink > 1) await this.refuseLinksOutside(fh, shown, Number(st.nlink));
        await fh.truncate(0);
        await fh.writeFile(content, 'utf8');
      } finally {
        await fh.close();
      }
    } catch (err) {
      throw fsError(err, shown, 'write');
    } finally {
      dir?.close();
    }
  }

  async list(p: string): Promise<FileStat[]> {
    const abs = await this.jail.resolve(p);
    const shown = this.jail.show(abs);
    let dir: AnchoredDir | undefined;
    try {
      dir = await this.anchors.open(abs);
      const out: FileStat[] = [];
      for (const name of (await readdir(dir.self)).sort()) {
        const st = await lstat(dir.at(name)).catch((err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return undefined; // removed between readdir and lstat
          throw err;
        });
        if (st) out.push(toStat(this.jail.show(path.join(abs, name)), st));
      }
      return out;
    } catch (err) {
      throw fsError(err, shown, 'list');
    } finally {
      dir?.close();
    }
  }

  async stat(p: string): Promise<FileStat | undefined> {
    const abs = await this.jail.resolve(p);
    const shown = this.jail.show(abs);
    try {
      return await this.inParent(abs, shown, 'stat', async (dir, name) => toStat(shown, await lstat(dir.at(name))));
    } catch (err) {
      const code = ((err as EnvError).cause as NodeJS.ErrnoException | undefined)?.code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw err;
    }
  }

  async glob(pattern: string, options: { cwd?: string; limit?: number } = {}): Promise<string[]> {
    const matcher = compileGlob(pattern);
    const cwd = await this.jail.resolve(options.cwd ?? '.');
    const cwdShown = this.jail.show(cwd);
    const list = async (relDir: string): Promise<WalkEntry[]> => {
      let dir: AnchoredDir | undefined;
      try {
        dir = await this.anchors.open(relDir ? path.join(cwd, ...relDir.split('/')) : cwd);
        const dirents = await readdir(dir.self, { withFileTypes: true });
        return dirents.map((d) => ({
          name: d.name,
          kind: d.isSymbolicLink() ? 'symlink' : d.isDirectory() ? 'directory' : 'file',
        }));
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        // The start folder must exist; a folder removed, unreadable or swapped for a symlink mid-walk is skipped.
        if (
          relDir &&
          (EnvError.isInstance(err) || code === 'ENOENT' || code === 'EACCES' || code === 'ENOTDIR' || code === 'ELOOP')
        )
          return [];
        throw fsError(err, cwdShown, 'search');
      } finally {
        dir?.close();
      }
    };
    const rel = await walkGlob(matcher, list, { limit: options.limit, ignore: this.ignoreDirs });
    return cwdShown === '.' ? rel : rel.map((r) => `${cwdShown}/${r}`);
  }

  async remove(p: string, options: { recursive?: boolean } = {}): Promise<void> {
    // Resolve the parent, not the entry: removing a symlink removes the link, never what it points to.
    const lexical = resolveLexical(this.jail.root, p);
    if (lexical === this.jail.root) throw new EnvError('cannot remove ".": it is the workspace root folder');
    const abs = path.join(await this.jail.resolve(path.dirname(lexical)), path.basename(lexical));
    const shown = this.jail.show(abs);
    await this.inParent(abs, shown, 'remove', async (dir, name) => {
      const st = await lstat(dir.at(name));
      if (!st.isDirectory()) return unlink(dir.at(name));
      if (!options.recursive)
        throw new EnvError(`cannot remove "${shown}": it is a folder; pass recursive to remove it with its contents`);
      await removeTree(dir, name);
    });
  }

  /** Where a path lands, symlinks followed, inside the workspace or not (for permission rules). */
  realPath(p: string): Promise<string> {
    return landingPath(this.jail.root, p);
  }

  /** Runs `fn` with the held folder that contains `abs` and the entry's name in it (`.` for the root itself). */
  private async inParent<T>(
    abs: string,
    shown: string,
    action: string,
    fn: (dir: AnchoredDir, name: string) => Promise<T>,
  ): Promise<T> {
    const atRoot = abs === this.jail.root;
    let dir: AnchoredDir | undefined;
    try {
      dir = await this.anchors.open(atRoot ? abs : path.dirname(abs));
      return await fn(dir, atRoot ? '.' : path.basename(abs));
    } catch (err) {
      throw fsError(err, shown, action);
    } finally {
      dir?.close();
    }
  }

  /** Throws unless every hard link of the open file is a name inside the workspace. */
  private async refuseLinksOutside(fh: FileHandle, shown: string, links: number): Promise<void> {
    const st = await fh.stat({ bigint: true });
    const inside = await namesInside(this.jail.root, st);
    if (inside !== undefined && inside >= links) return;
    const outside =
      inside === undefined
        ? 'the workspace is too large to check that none is outside it'
        : `${links - inside === 1 ? 'one is' : `${links - inside} are`} outside the workspace`;
    throw new EnvError(
      `cannot write "${shown}": it has ${links} hard links, and ${outside}; a write would change that file too. ` +
        'Remove it and write a new file in its place if you mean to replace it.',
    );
  }
}

/** Removes folder `name` in `parent` with everything in it, every step through held folders (no symlink followed). */
async function removeTree(parent: AnchoredDir, name: string): Promise<void> {
  const dir = await parent.child(name);
  try {
    for (const entry of await readdir(dir.self, { withFileTypes: true })) {
      if (entry.isDirectory()) await removeTree(dir, entry.name);
      else await unlink(dir.at(entry.name));
    }
  } finally {
    dir.close();
  }
  await rmdir(parent.at(name));
}

/** Refuses folders, FIFOs, sockets and devices: reading the last three can block forever or never end. */
async function requireRegularFile(fh: FileHandle, shown: string, action: string): Promise<{ nlink: number }> {
  const st = await fh.stat();
  if (st.isFile()) return st;
  if (st.isDirectory()) throw new EnvError(`cannot ${action} "${shown}": it is a folder, not a file`);
  const kind = st.isFIFO() ? 'a named pipe (FIFO)' : st.isSocket() ? 'a socket' : 'a device';
  throw new EnvError(`cannot ${action} "${shown}": it is ${kind}, not a regular file`);
}

function toStat(
  shown: string,
  st: { isDirectory(): boolean; isSymbolicLink(): boolean; size: number; mtimeMs: number },
): FileStat {
  return {
    path: shown,
    type: st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'directory' : 'file',
    size: st.size,
    mtimeMs: st.mtimeMs,
  };
}
