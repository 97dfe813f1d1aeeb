import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { FileOps, FileStat } from '../core/index.js';
import { EnvError } from '../core/index.js';
import { fsError } from './fs-error.js';
import { compileGlob } from './glob-pattern.js';
import { walkGlob, type WalkEntry } from './glob-walk.js';
import { resolveLexical, type PathJail } from './path-jail.js';

// O_NOFOLLOW: if the checked file is swapped for a symlink between the jail check and the open, the open fails.
// O_NONBLOCK: opening a FIFO (e.g. one a command made with mkfifo) would otherwise wait for a writer (or reader)
// forever, holding a libuv pool thread; with it the open returns and the type check below refuses the FIFO.
// On a regular file O_NONBLOCK changes nothing.
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** File ops on the host disk, every path through the workspace jail. Paths in answers are root-relative, `/`-separated. */
export class HostFileOps implements FileOps {
  constructor(
    private readonly jail: PathJail,
    private readonly ignoreDirs: ReadonlySet<string>,
  ) {}

  get root(): string {
    return this.jail.root;
  }

  async readBytes(p: string): Promise<Uint8Array> {
    const abs = await this.jail.resolve(p);
    try {
      const fh = await open(abs, READ_FLAGS);
      try {
        await requireRegularFile(fh, this.jail.show(abs), 'read');
        return new Uint8Array(await fh.readFile());
      } finally {
        await fh.close();
      }
    } catch (err) {
      throw fsError(err, this.jail.show(abs), 'read');
    }
  }

  async readText(p: string): Promise<string> {
    return new TextDecoder('utf-8').decode(await this.readBytes(p));
  }

  async writeText(p: string, content: string): Promise<void> {
    if (typeof content !== 'string') throw new EnvError(`content to write must be a string, got ${typeof content}`);
    const abs = await this.jail.resolve(p);
    if (abs === this.jail.root) throw new EnvError('cannot write ".": it is the workspace root folder');
    try {
      await mkdir(path.dirname(abs), { recursive: true }).catch((err: NodeJS.ErrnoException) => {
        // mkdir -p over an existing file says EEXIST; what the caller needs to hear is "a parent is a file".
        throw err.code === 'EEXIST' ? Object.assign(new Error(err.message), { code: 'ENOTDIR' }) : err;
      });
      const fh = await open(abs, WRITE_FLAGS, 0o644);
      try {
        // Truncate only once it is known to be a regular file (O_TRUNC in the open would act before the check).
        await requireRegularFile(fh, this.jail.show(abs), 'write');
        await fh.truncate(0);
        await fh.writeFile(content, 'utf8');
      } finally {
        await fh.close();
      }
    } catch (err) {
      throw fsError(err, this.jail.show(abs), 'write');
    }
  }

  async list(p: string): Promise<FileStat[]> {
    const abs = await this.jail.resolve(p);
    try {
      const names = (await readdir(abs)).sort();
      const out: FileStat[] = [];
      for (const name of names) {
        const child = path.join(abs, name);
        const st = await lstat(child).catch((err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return undefined; // removed between readdir and lstat
          throw err;
        });
        if (st) out.push(toStat(this.jail.show(child), st));
      }
      return out;
    } catch (err) {
      throw fsError(err, this.jail.show(abs), 'list');
    }
  }

  async stat(p: string): Promise<FileStat | undefined> {
    const abs = await this.jail.resolve(p);
    try {
      return toStat(this.jail.show(abs), await lstat(abs));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw fsError(err, this.jail.show(abs), 'stat');
    }
  }

  async glob(pattern: string, options: { cwd?: string; limit?: number } = {}): Promise<string[]> {
    const matcher = compileGlob(pattern);
    const cwd = await this.jail.resolve(options.cwd ?? '.');
    const cwdShown = this.jail.show(cwd);
    const list = async (relDir: string): Promise<WalkEntry[]> => {
      const dir = relDir ? path.join(cwd, ...relDir.split('/')) : cwd;
      try {
        const dirents = await readdir(dir, { withFileTypes: true });
        return dirents.map((d) => ({ name: d.name, kind: d.isSymbolicLink() ? 'symlink' : d.isDirectory() ? 'directory' : 'file' }));
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        // The start folder must exist; a folder removed or unreadable mid-walk is skipped.
        if (relDir && (code === 'ENOENT' || code === 'EACCES' || code === 'ENOTDIR')) return [];
        throw fsError(err, cwdShown, 'search');
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
    try {
      const st = await lstat(abs);
      if (st.isDirectory() && !options.recursive) throw new EnvError(`cannot remove "${shown}": it is a folder; pass recursive to remove it with its contents`);
      await rm(abs, { recursive: !!options.recursive, force: false });
    } catch (err) {
      throw fsError(err, shown, 'remove');
    }
  }
}

/** Refuses folders, FIFOs, sockets and devices: reading the last three can block forever or never end. */
async function requireRegularFile(fh: FileHandle, shown: string, action: string): Promise<void> {
  const st = await fh.stat();
  if (st.isFile()) return;
  if (st.isDirectory()) throw new EnvError(`cannot ${action} "${shown}": it is a folder, not a file`);
  const kind = st.isFIFO() ? 'a named pipe (FIFO)' : st.isSocket() ? 'a socket' : 'a device';
  throw new EnvError(`cannot ${action} "${shown}": it is ${kind}, not a regular file`);
}

function toStat(shown: string, st: { isDirectory(): boolean; isSymbolicLink(): boolean; size: number; mtimeMs: number }): FileStat {
  return { path: shown, type: st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'directory' : 'file', size: st.size, mtimeMs: st.mtimeMs };
}
