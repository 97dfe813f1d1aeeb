import { spawnSync } from 'node:child_process';
import { lstatSync, readlinkSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * Bubblewrap (`bwrap`, Debian package `bubblewrap`): runs a process in fresh Linux namespaces with a file system
 * built from explicit bind mounts. This module builds its argument list and finds a working binary; it runs
 * nothing by itself (see `runCapped`). What a sandbox built by {@link bwrapArgs} gives the process:
 * - a file system of `/usr` (and the `/bin`, `/lib`, `/lib64`, `/sbin` links or folders), `/etc/alternatives`,
 *   its own `/proc`, a minimal `/dev`, an empty `/tmp`, the `readOnly` folders read-only and the `writable`
 *   folders read-write, each at its own path; nothing else of the host (no `/etc/passwd`, no home folders);
 * - its own user, PID, IPC, UTS and cgroup namespaces, and its own network namespace with only a loopback
 *   interface unless `network` is true (no route to the host's services or the internet);
 * - only the environment variables given (`--clearenv`);
 * - death with the caller (`--die-with-parent`) and a new session (no access to the caller's terminal).
 */
export interface BwrapOptions {
  /** Folders the process may read, bound read-only at the same path. */
  readOnly?: readonly string[];
  /** Folders the process may read and write, bound at the same path. */
  writable?: readonly string[];
  /** Share the host's network (default false: an isolated network namespace). */
  network?: boolean;
  /** Working folder inside the sandbox (must be one of the bound folders). */
  cwd: string;
  /** The whole environment the process sees. */
  env?: Record<string, string>;
}

/** Top-level system paths that hold programs and libraries; bound read-only (or recreated as the links they are). */
const SYSTEM = ['/usr', '/bin', '/lib', '/lib64', '/sbin'];

/**
 * The arguments of `bwrap` (without the binary) for a sandbox as described in this module's documentation,
 * ending with `--`: append the command and its arguments. Paths must be absolute; a folder that does not exist
 * is an error naming it (bwrap's own message would not say which option).
 */
export function bwrapArgs(options: BwrapOptions): string[] {
  const args = ['--unshare-all', ...(options.network ? ['--share-net'] : []), '--die-with-parent', '--new-session', '--clearenv'];
  for (const [k, v] of Object.entries(options.env ?? {})) args.push('--setenv', k, v);
  for (const p of SYSTEM) {
    const st = fileInfo(p, lstatSync);
    if (st?.isSymbolicLink()) args.push('--symlink', readlinkSync(p), p);
    else if (st?.isDirectory()) args.push('--ro-bind', p, p);
  }
  args.push('--ro-bind-try', '/etc/alternatives', '/etc/alternatives', '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  for (const p of options.readOnly ?? []) args.push('--ro-bind', checkedFolder(p, 'readOnly'), p);
  for (const p of options.writable ?? []) args.push('--bind', checkedFolder(p, 'writable'), p);
  args.push('--chdir', checkedFolder(options.cwd, 'cwd'), '--');
  return args;
}

/**
 * A bwrap binary that works here, or undefined: the first `bwrap` on PATH (or the given candidates) that can
 * create the namespaces `bwrapArgs` asks for (some containers forbid user namespaces, and then bwrap exists but
 * cannot run). Runs a tiny probe, so call it once and keep the answer.
 */
export function findBwrap(candidates: readonly string[] = (process.env.PATH ?? '/usr/bin:/bin').split(delimiter).map((d) => join(d, 'bwrap'))): string | undefined {
  for (const bin of candidates) {
    if (!fileInfo(bin, statSync)?.isFile()) continue;
    const probe = spawnSync(bin, [...bwrapArgs({ cwd: '/tmp' }), '/bin/sh', '-c', 'exit 0'], { stdio: 'ignore', timeout: 10_000, env: {} });
    if (probe.status === 0) return bin;
  }
  return undefined;
}

function checkedFolder(p: string, what: string): string {
  if (!p.startsWith('/')) throw new Error(`bwrap ${what} path must be absolute, got ${JSON.stringify(p)}`);
  if (!fileInfo(p, statSync)?.isDirectory()) throw new Error(`bwrap ${what} folder ${p} does not exist`);
  return p;
}

/** `stat` or `lstat` of a path, or undefined when there is nothing there. */
function fileInfo(p: string, how: typeof statSync | typeof lstatSync) {
  try {
    return how(p);
  } catch {
    return undefined; // absent (e.g. no /lib64 on this system): nothing to bind, not a candidate
  }
}
