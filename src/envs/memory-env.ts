import path from 'node:path';
import type { Env, FileOps, MountOps, OpGroups } from '../core/index.js';
import { MemoryFileOps } from './memory-file-ops.js';
import { MountedFileOps } from './mounted-file-ops.js';

/** Options of a MemoryEnv. */
export interface MemoryEnvOptions {
  /** Initial files: root-relative path -> content (text, or bytes for binary fixtures). */
  files?: Record<string, string | Uint8Array>;
  /** The virtual root paths are shown against (default `/workspace`); nothing on disk is touched. */
  root?: string;
  /** Folder names glob walks skip unless the pattern names them (default `['node_modules']`). */
  ignoreDirs?: string[];
  /** Name recorded in the trace (default `memory`). */
  name?: string;
}

/**
 * An env whose workspace is an in-memory file tree: the `file` op group (there is no honest way to run a
 * process against files that are not on disk, so `process` is not offered and tools that need it fail the
 * capability preflight), and `mount`: a host folder mounted read-only appears under `/mnt/<name>` (the only
 * way this env reads the disk). For tests and for agents that must not write to the disk.
 */
export class MemoryEnv implements Env {
  readonly name: string;
  readonly files: MemoryFileOps;
  /** The in-memory files plus read-only mounts under `/mnt` (what `ops('file')` and `ops('mount')` hand out). */
  private readonly mounted: MountedFileOps;

  constructor(options: MemoryEnvOptions = {}) {
    const root = path.posix.resolve('/', options.root ?? '/workspace');
    this.name = options.name ?? 'memory';
    this.files = new MemoryFileOps(root, new Set(options.ignoreDirs ?? ['node_modules']));
    this.mounted = new MountedFileOps(this.files, mountPoint, path.posix);
    for (const [p, content] of Object.entries(options.files ?? {})) {
      if (typeof content === 'string') this.files.writeBytes(p, new TextEncoder().encode(content));
      else this.files.writeBytes(p, content);
    }
  }

  get root(): string {
    return this.files.root;
  }

  ops<G extends keyof OpGroups>(group: G): OpGroups[G] | undefined;
  ops(group: string): unknown;
  ops(group: string): FileOps | MountOps | undefined {
    if (group === 'file') return this.mounted;
    if (group === 'mount') return this.mounted;
    return undefined;
  }

  /** Every file as root-relative path -> text. */
  snapshot(): Record<string, string> {
    return this.files.snapshot();
  }
}

/** Where a MemoryEnv shows a mounted host folder: `/mnt/<folder name>`, numbered when the name is taken. */
function mountPoint(hostDir: string, taken: (at: string) => boolean): string {
  const name = path.basename(hostDir).replace(/[^A-Za-z0-9._-]/g, '_') || 'mount';
  let at = `/mnt/${name}`;
  for (let i = 2; taken(at); i++) at = `/mnt/${name}-${i}`;
  return at;
}
