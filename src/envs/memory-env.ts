import path from 'node:path';
import type { Env, FileOps, OpGroups } from '../core/index.js';
import { MemoryFileOps } from './memory-file-ops.js';

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
 * An env whose workspace is an in-memory file tree: the `file` op group only (there is no honest way to
 * run a process against files that are not on disk, so `process` is not offered and tools that need it
 * fail the capability preflight). For tests and for agents that must not touch the disk.
 */
export class MemoryEnv implements Env {
  readonly name: string;
  readonly files: MemoryFileOps;

  constructor(options: MemoryEnvOptions = {}) {
    const root = path.posix.resolve('/', options.root ?? '/workspace');
    this.name = options.name ?? 'memory';
    this.files = new MemoryFileOps(root, new Set(options.ignoreDirs ?? ['node_modules']));
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
  ops(group: string): FileOps | undefined {
    return group === 'file' ? this.files : undefined;
  }

  /** Every file as root-relative path -> text. */
  snapshot(): Record<string, string> {
    return this.files.snapshot();
  }
}
