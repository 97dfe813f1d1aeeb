import path from 'node:path';
import type { FileOps, FileStat } from '../core/index.js';
import { EnvError } from '../core/index.js';
import { fsError } from './fs-error.js';
import { compileGlob } from './glob-pattern.js';
import { walkGlob, type WalkEntry } from './glob-walk.js';
import { resolveLexical } from './path-jail.js';

const posix = path.posix;

interface MemoryFile {
  data: Uint8Array;
  mtimeMs: number;
}

function code(c: string): NodeJS.ErrnoException {
  return Object.assign(new Error(c), { code: c });
}

/**
 * File ops over an in-memory tree of `/`-separated paths below a virtual root. The same jail rules as the
 * host (minus symlinks, which this tree does not have) and the same error messages, so a tool behaves alike
 * on both envs.
 */
export class MemoryFileOps implements FileOps {
  private readonly files = new Map<string, MemoryFile>();
  private readonly dirs = new Set<string>();

  constructor(
    readonly root: string,
    private readonly ignoreDirs: ReadonlySet<string>,
  ) {
    this.dirs.add(root);
  }

  async readBytes(p: string): Promise<Uint8Array> {
    const abs = resolveLexical(this.root, p, posix);
    const f = this.files.get(abs);
    if (f) return f.data.slice();
    throw fsError(code(this.dirs.has(abs) ? 'EISDIR' : 'ENOENT'), this.show(abs), 'read');
  }

  async readText(p: string): Promise<string> {
    return new TextDecoder('utf-8').decode(await this.readBytes(p));
  }

  async writeText(p: string, content: string): Promise<void> {
    if (typeof content !== 'string') throw new EnvError(`content to write must be a string, got ${typeof content}`);
    this.put(resolveLexical(this.root, p, posix), new TextEncoder().encode(content));
  }

  /** Writes bytes (for binary fixtures); `writeText` is the FileOps way. */
  writeBytes(p: string, data: Uint8Array): void {
    this.put(resolveLexical(this.root, p, posix), data.slice());
  }

  async list(p: string): Promise<FileStat[]> {
    const abs = resolveLexical(this.root, p, posix);
    if (!this.dirs.has(abs)) throw fsError(code(this.files.has(abs) ? 'ENOTDIR' : 'ENOENT'), this.show(abs), 'list');
    return this.children(abs)
      .map((e) => this.statOf(posix.join(abs, e.name))!)
      .sort((a, b) => (a.path < b.path ? -1 : 1));
  }

  async stat(p: string): Promise<FileStat | undefined> {
    return this.statOf(resolveLexical(this.root, p, posix));
  }

  async glob(pattern: string, options: { cwd?: string; limit?: number } = {}): Promise<string[]> {
    const matcher = compileGlob(pattern);
    const cwd = resolveLexical(this.root, options.cwd ?? '.', posix);
    if (!this.dirs.has(cwd)) throw fsError(code(this.files.has(cwd) ? 'ENOTDIR' : 'ENOENT'), this.show(cwd), 'search');
    const list = async (relDir: string): Promise<WalkEntry[]> => this.children(relDir ? posix.join(cwd, relDir) : cwd);
    const rel = await walkGlob(matcher, list, { limit: options.limit, ignore: this.ignoreDirs });
    const shown = this.show(cwd);
    return shown === '.' ? rel : rel.map((r) => `${shown}/${r}`);
  }

  async remove(p: string, options: { recursive?: boolean } = {}): Promise<void> {
    const abs = resolveLexical(this.root, p, posix);
    const shown = this.show(abs);
    if (abs === this.root) throw new EnvError('cannot remove ".": it is the workspace root folder');
    if (this.files.delete(abs)) return;
    if (!this.dirs.has(abs)) throw fsError(code('ENOENT'), shown, 'remove');
    if (!options.recursive)
      throw new EnvError(`cannot remove "${shown}": it is a folder; pass recursive to remove it with its contents`);
    const prefix = `${abs}/`;
    for (const k of [...this.files.keys()]) if (k.startsWith(prefix)) this.files.delete(k);
    for (const d of [...this.dirs]) if (d === abs || d.startsWith(prefix)) this.dirs.delete(d);
  }

  /** Every file as root-relative path -> text (for tests and for inspecting what an agent wrote). */
  snapshot(): Record<string, string> {
    const out: Record<string, string> = {};
    const dec = new TextDecoder('utf-8');
    for (const [k, f] of [...this.files].sort(([a], [b]) => (a < b ? -1 : 1))) out[this.show(k)] = dec.decode(f.data);
    return out;
  }

  private put(abs: string, data: Uint8Array): void {
    const shown = this.show(abs);
    if (abs === this.root || this.dirs.has(abs)) throw fsError(code('EISDIR'), shown, 'write');
    const parents: string[] = [];
    for (let d = posix.dirname(abs); d !== this.root; d = posix.dirname(d)) parents.push(d);
    if (parents.some((d) => this.files.has(d))) throw fsError(code('ENOTDIR'), shown, 'write');
    for (const d of parents) this.dirs.add(d);
    this.files.set(abs, { data, mtimeMs: Date.now() });
  }

  private statOf(abs: string): FileStat | undefined {
    const f = this.files.get(abs);
    if (f) return { path: this.show(abs), type: 'file', size: f.data.length, mtimeMs: f.mtimeMs };
    if (this.dirs.has(abs)) return { path: this.show(abs), type: 'directory', size: 0, mtimeMs: 0 };
    return undefined;
  }

  private children(dir: string): WalkEntry[] {
    const out: WalkEntry[] = [];
    for (const k of this.files.keys())
      if (posix.dirname(k) === dir) out.push({ name: posix.basename(k), kind: 'file' });
    for (const d of this.dirs)
      if (d !== dir && posix.dirname(d) === dir) out.push({ name: posix.basename(d), kind: 'directory' });
    return out;
  }

  private show(abs: string): string {
    const rel = posix.relative(this.root, abs);
    return rel === '' ? '.' : rel;
  }
}
