// Its declarations name Node's types: the reference lets a consumer whose tsconfig lacks `types: ["node"]` find them.
/// <reference types="node" preserve="true" />
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { FileOps, FileStat, MountOps } from '../core/index.js';
import { EnvError } from '../core/index.js';
import { HostFileOps } from './host-file-ops.js';
import { PathJail } from './path-jail.js';

interface Mount {
  /** Where the env shows the folder (an absolute path in the env's own path style). */
  at: string;
  hostDir: string;
  ops: FileOps;
}

/**
 * An env's file ops with read-only mounts: paths under a mount point are served from a host folder (jailed to
 * it, symlinks included, like a workspace), every other path from the env's own file ops. Writing or removing
 * under a mount point is refused. `place` decides where a host folder appears: a HostEnv shows it at its real
 * path, a MemoryEnv under `/mnt`.
 */
export class MountedFileOps implements FileOps, MountOps {
  private readonly mounts: Mount[] = [];

  constructor(
    private readonly own: FileOps,
    private readonly place: (hostDir: string, taken: (at: string) => boolean) => string,
    private readonly style: path.PlatformPath = path,
  ) {}

  get root(): string {
    return this.own.root;
  }

  async mountReadOnly(hostDir: string): Promise<string> {
    const real = await realpath(path.resolve(hostDir)).catch(() => undefined);
    if (!real || !(await stat(real)).isDirectory()) throw new EnvError(`cannot mount ${hostDir}: not a folder`);
    const existing = this.mounts.find((m) => m.hostDir === real);
    if (existing) return existing.at;
    const at = this.place(real, (p) => this.mounts.some((m) => m.at === p));
    this.mounts.push({ at, hostDir: real, ops: new HostFileOps(new PathJail(real), new Set()) });
    return at;
  }

  /** The mount a path falls in (and the path inside it), or undefined for the env's own files. */
  private route(p: string): { mount: Mount; rel: string } | undefined {
    if (!this.mounts.length || !this.style.isAbsolute(p)) return undefined;
    const abs = this.style.resolve(p);
    for (const mount of this.mounts) {
      if (abs === mount.at) return { mount, rel: '.' };
      if (abs.startsWith(mount.at + this.style.sep)) return { mount, rel: abs.slice(mount.at.length + 1) };
    }
    return undefined;
  }

  private shown(mount: Mount, rel: string): string {
    return rel === '.' ? mount.at : `${mount.at}${this.style.sep}${rel}`;
  }

  readBytes(p: string): Promise<Uint8Array> {
    const r = this.route(p);
    return r ? r.mount.ops.readBytes(r.rel) : this.own.readBytes(p);
  }

  readText(p: string): Promise<string> {
    const r = this.route(p);
    return r ? r.mount.ops.readText(r.rel) : this.own.readText(p);
  }

  /** Where a path lands: under a mount, as given (the mount serves it read-only), else the env's own answer. */
  async realPath(p: string): Promise<string> {
    if (this.route(p)) return this.style.resolve(p);
    return this.own.realPath ? this.own.realPath(p) : this.style.resolve(this.own.root, p);
  }

  async writeText(p: string, content: string): Promise<void> {
    const r = this.route(p);
    if (r) throw new EnvError(`cannot write "${p}": ${r.mount.at} is mounted read-only`);
    return this.own.writeText(p, content);
  }

  async remove(p: string, options?: { recursive?: boolean }): Promise<void> {
    const r = this.route(p);
    if (r) throw new EnvError(`cannot remove "${p}": ${r.mount.at} is mounted read-only`);
    return this.own.remove(p, options);
  }

  async list(p: string): Promise<FileStat[]> {
    const r = this.route(p);
    if (!r) return this.own.list(p);
    return (await r.mount.ops.list(r.rel)).map((s) => ({ ...s, path: this.shown(r.mount, s.path) }));
  }

  async stat(p: string): Promise<FileStat | undefined> {
    const r = this.route(p);
    if (!r) return this.own.stat(p);
    const s = await r.mount.ops.stat(r.rel);
    return s && { ...s, path: this.shown(r.mount, s.path) };
  }

  async glob(pattern: string, options: { cwd?: string; limit?: number } = {}): Promise<string[]> {
    const r = options.cwd !== undefined ? this.route(options.cwd) : undefined;
    if (!r) return this.own.glob(pattern, options);
    return (await r.mount.ops.glob(pattern, { ...options, cwd: r.rel })).map((g) => this.shown(r.mount, g));
  }
}
