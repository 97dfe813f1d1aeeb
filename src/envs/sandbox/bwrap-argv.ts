// Its declarations name Node's types: the reference lets a consumer whose tsconfig lacks `types: ["node"]` find them.
/// <reference types="node" preserve="true" />
import { lstatSync, readlinkSync, statSync } from 'node:fs';

/** Host folders of programs and libraries every sandboxed program sees read-only (or as the links they are). */
export const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'] as const;

/** Kernel limits put on every process of a sandboxed command (see {@link limitArgv}). */
export interface SandboxLimits {
  /** Processes (and threads) the command may have at once (RLIMIT_NPROC). */
  processes: number;
  /** Largest file the command may write, bytes (RLIMIT_FSIZE). */
  fileSizeBytes: number;
  /** CPU time per process, seconds (RLIMIT_CPU). */
  cpuSeconds: number;
  /**
   * Memory a process may allocate, bytes (RLIMIT_DATA: its heap and private writable mappings). Not RLIMIT_AS:
   * address space that runtimes only reserve (V8, WebAssembly guard regions) would count, and Node would not start.
   */
  memoryBytes: number;
}

/** What a bubblewrap sandbox lets one program see and do. */
export interface BwrapSpec {
  /** The folder the program starts in (inside one of the bound folders). */
  cwd: string;
  /** Host folders mounted read-write at the same path: the only places the program can change. */
  writable?: readonly string[];
  /** More host folders mounted read-only at the same path (besides {@link SYSTEM_DIRS}). */
  readOnly?: readonly string[];
  /** Keep the host's network (default false: a network namespace with nothing but loopback). */
  network?: boolean;
  /**
   * How much of the host's `/etc`: `all` (shells and tools read `/etc/passwd`, `resolv.conf`, certificates:
   * HostEnv's commands) or `alternatives`, only `/etc/alternatives`, the links that pick interpreters (default:
   * skill scripts, which must not read the host's account list).
   */
  etc?: 'all' | 'alternatives';
  /** The whole environment (`--clearenv`, then these); absent: the program gets the environment bwrap was given. */
  env?: Record<string, string>;
}

/**
 * The bubblewrap options for `spec` (what goes between `bwrap` and `--`):
 * - every namespace unshared (user, PID, IPC, UTS, cgroup, network unless `network`): the program sees only its
 *   own processes in its own `/proc`, and cannot reach the host's environment through `/proc/<pid>/environ` of
 *   its parent;
 * - `--die-with-parent` (killing bwrap kills everything inside, whatever process group it moved to),
 *   `--new-session` (no terminal to push input into), `--cap-drop ALL`;
 * - a fresh `/tmp`, `/dev` and `/proc`; the system folders, `/etc` (see `etc`) and `readOnly` read-only (a
 *   system folder that is a symlink, as `/bin` -> `usr/bin`, is recreated as that symlink); `writable`
 *   read-write, last, so they are on top. Nothing else of the host (home folders, other projects, `/root`,
 *   `/run`) exists.
 * Paths must be absolute folders that exist: a bad one is an Error naming it and its option (bwrap's own message
 * would not say which).
 */
export function bwrapArgv(spec: BwrapSpec): string[] {
  const args = [
    '--die-with-parent',
    '--new-session',
    '--unshare-all',
    ...(spec.network ? ['--share-net'] : []),
    '--cap-drop',
    'ALL',
  ];
  if (spec.env) {
    args.push('--clearenv');
    for (const [k, v] of Object.entries(spec.env)) args.push('--setenv', k, v);
  }
  for (const dir of SYSTEM_DIRS) {
    const st = fileInfo(dir, lstatSync);
    if (st?.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else if (st?.isDirectory()) args.push('--ro-bind', dir, dir);
  }
  if ((spec.etc ?? 'alternatives') === 'all') args.push('--ro-bind', '/etc', '/etc');
  else args.push('--ro-bind-try', '/etc/alternatives', '/etc/alternatives');
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  for (const dir of spec.readOnly ?? []) args.push('--ro-bind', checkedFolder(dir, 'readOnly'), dir);
  for (const dir of spec.writable ?? []) args.push('--bind', checkedFolder(dir, 'writable'), dir);
  args.push('--chdir', checkedFolder(spec.cwd, 'cwd'));
  return args;
}

/**
 * `prlimit` arguments that set `limits` on the program that follows (and everything it starts). `processes`
 * is left out when `withProcesses` is false: outside a user namespace RLIMIT_NPROC counts every process of
 * the user on the machine, so a small limit would break the user's other programs' forks inside the command.
 */
export function limitArgv(limits: SandboxLimits, withProcesses: boolean): string[] {
  return [
    ...(withProcesses ? [`--nproc=${limits.processes}`] : []),
    `--fsize=${limits.fileSizeBytes}`,
    `--cpu=${limits.cpuSeconds}`,
    `--data=${limits.memoryBytes}`,
    '--',
  ];
}

function checkedFolder(p: string, what: string): string {
  if (!p.startsWith('/')) throw new Error(`bwrap ${what} path must be absolute, got ${JSON.stringify(p)}`);
  if (!fileInfo(p, statSync)?.isDirectory()) throw new Error(`bwrap ${what} folder ${p} does not exist`);
  return p;
}

/** `stat` or `lstat` of a path, or undefined when there is nothing there. */
export function fileInfo(p: string, how: typeof statSync | typeof lstatSync) {
  try {
    return how(p);
  } catch {
    return undefined; // absent (e.g. no /lib64 on this system): nothing to bind, not a candidate
  }
}
