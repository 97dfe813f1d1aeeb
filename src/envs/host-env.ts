import { mkdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Env, FileOps, MountOps, OpGroups, ProcessOps } from '../core/index.js';
import { HostFileOps } from './host-file-ops.js';
import { MountedFileOps } from './mounted-file-ops.js';
import { HostProcessOps } from './host-process-ops.js';
import { PathJail } from './path-jail.js';
import { Sandbox, type SandboxMode, type SandboxOptions } from './sandbox/sandbox.js';

/** Options of a HostEnv. Only `root` is required. */
export interface HostEnvOptions {
  /** The workspace folder; every file and process op stays inside it. */
  root: string;
  /** Create the root folder when it does not exist (default false: a missing root is an error). */
  create?: boolean;
  /** Host environment variables a command may see besides PATH, HOME (the root) and LANG. */
  allowEnv?: string[];
  /** Offer the `process` op group (default true). `false` makes a files-only env. */
  process?: boolean;
  /** Shell that runs commands as `<shell> -c <command>` (default `bash`). */
  shell?: string;
  /** Default timeout of one command in ms (default 120 000; the bash tool passes its own). */
  timeoutMs?: number;
  /**
   * Where commands run (default `auto`): `auto` uses bubblewrap when it works on this machine and runs
   * commands without a sandbox otherwise (the env's `sandboxNote` says why); `bwrap` requires it (an error
   * here when it does not work); `none` never uses it. Options (`{ network, readOnly, limits }`) or a Sandbox
   * instance shared with other envs (one bubblewrap probe for all) are accepted too.
   */
  sandbox?: SandboxMode | SandboxOptions | Sandbox;
  /** Default cap on a command's stdout + stderr in bytes (default 10 MiB). */
  maxOutputBytes?: number;
  /** Folder names glob walks skip unless the pattern names them (default `['node_modules']`). */
  ignoreDirs?: string[];
  /** Name recorded in the trace (default `host`). */
  name?: string;
}

/**
 * An env over a real workspace folder on the host: `file` ops (read, write, list, stat, glob, remove) and
 * `process` ops (shell commands), both jailed to the root, and `mount` ops: a host folder mounted read-only is
 * readable at its real path (the `skill` tool mounts skill folders). See {@link PathJail} for the path rules
 * and {@link HostProcessOps} for how commands are run.
 */
export class HostEnv implements Env {
  readonly name: string;
  /** The workspace root as a real absolute path. */
  readonly root: string;
  readonly files: FileOps;
  readonly processes: HostProcessOps | undefined;
  /** The workspace's file ops plus read-only mounts, shown at their real paths (what `ops('file')` and `ops('mount')` hand out). */
  private readonly mounted: MountedFileOps;
  /** The sandbox commands run in (undefined for a files-only env). */
  readonly commandSandbox: Sandbox | undefined;

  constructor(options: HostEnvOptions) {
    if (!options || typeof options.root !== 'string' || !options.root)
      throw new Error('HostEnv needs a root folder: new HostEnv({ root: "./workspace" })');
    const wanted = path.resolve(options.root);
    if (options.create) mkdirSync(wanted, { recursive: true });
    let real: string;
    try {
      real = realpathSync(wanted);
    } catch (err) {
      throw new Error(`HostEnv root ${wanted} does not exist (pass create: true to create it)`, { cause: err });
    }
    if (!statSync(real).isDirectory()) throw new Error(`HostEnv root ${wanted} is not a folder`);
    this.root = real;
    this.name = options.name ?? 'host';
    const jail = new PathJail(real);
    this.files = new HostFileOps(jail, new Set(options.ignoreDirs ?? ['node_modules']));
    this.mounted = new MountedFileOps(this.files, (hostDir) => hostDir);
    if (options.process === false) {
      this.processes = undefined;
      this.commandSandbox = undefined;
      return;
    }
    const s = options.sandbox ?? 'auto';
    this.commandSandbox = s instanceof Sandbox ? s : new Sandbox(typeof s === 'string' ? { mode: s } : s);
    // A required sandbox that cannot work is an error now, not at the first command.
    if (this.commandSandbox.mode === 'bwrap') void this.commandSandbox.kind;
    this.processes = new HostProcessOps(jail, {
      shell: options.shell ?? 'bash',
      allowEnv: options.allowEnv ?? [],
      timeoutMs: options.timeoutMs ?? 120_000,
      maxOutputBytes: options.maxOutputBytes ?? 10 * 1024 * 1024,
      sandbox: this.commandSandbox,
    });
  }

  /** `bwrap` or `none`: how commands are isolated, recorded in the trace manifest; undefined without the process group. */
  get sandbox(): 'bwrap' | 'none' | undefined {
    return this.commandSandbox?.kind;
  }

  /** Why commands run without a sandbox (mode `auto` on a machine where bubblewrap does not work), else undefined. */
  get sandboxNote(): string | undefined {
    return this.commandSandbox?.note;
  }

  ops<G extends keyof OpGroups>(group: G): OpGroups[G] | undefined;
  ops(group: string): unknown;
  ops(group: string): FileOps | ProcessOps | MountOps | undefined {
    if (group === 'file') return this.mounted;
    if (group === 'process') return this.processes;
    if (group === 'mount') return this.mounted;
    return undefined;
  }

  /** Kills commands still running, each with its process group (and, sandboxed, its PID namespace). */
  kill(): void {
    this.processes?.killAll();
  }

  /** Kills commands still running; the workspace itself is left as it is. */
  close(): void {
    this.kill();
  }
}
