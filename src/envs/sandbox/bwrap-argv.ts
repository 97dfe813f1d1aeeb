import { existsSync, lstatSync, readlinkSync } from 'node:fs';

/** Host folders every sandboxed program sees read-only: the system, so that shells and tools work. */
export const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'] as const;

/** Kernel limits put on every process of a sandboxed command (see {@link limitArgv}). */
export interface SandboxLimits {
  /** Processes (and threads) the command may have at once (RLIMIT_NPROC). */
  processes: number;
  /** Largest file the command may write, bytes (RLIMIT_FSIZE). */
  fileSizeBytes: number;
  /** CPU time per process, seconds (RLIMIT_CPU). */
  cpuSeconds: number;
}

/** What a bubblewrap sandbox lets one command see and do. */
export interface BwrapSpec {
  /** The folder the command starts in (inside one of the `writable` folders, normally). */
  cwd: string;
  /** Host folders mounted read-write at the same path: the only places the command can change. */
  writable: readonly string[];
  /** More host folders mounted read-only at the same path (besides {@link SYSTEM_DIRS}). */
  readOnly: readonly string[];
  /** Keep the host's network (default: a network namespace with nothing but loopback). */
  network: boolean;
}

/**
 * The bubblewrap options for `spec` (what goes between `bwrap` and `--`):
 * - every namespace unshared (user, PID, IPC, UTS, cgroup, network unless `network`): the command sees
 *   only its own processes in its own `/proc`, and cannot reach the host's environment through
 *   `/proc/<pid>/environ` of its parent;
 * - `--die-with-parent` (killing bwrap kills everything inside, whatever process group it moved to),
 *   `--new-session` (no terminal to push input into), `--cap-drop ALL`;
 * - a fresh `/tmp`, `/dev` and `/proc`; the system folders and `readOnly` read-only (a system folder that
 *   is a symlink, as `/bin` -> `usr/bin`, is recreated as that symlink); `writable` read-write, last, so
 *   they are on top. Nothing else of the host (home folders, other projects, `/root`, `/run`) exists.
 */
export function bwrapArgv(spec: BwrapSpec): string[] {
  const args = ['--die-with-parent', '--new-session', '--unshare-all', ...(spec.network ? ['--share-net'] : []), '--cap-drop', 'ALL'];
  for (const dir of SYSTEM_DIRS) {
    if (!existsSync(dir)) continue;
    if (lstatSync(dir).isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else args.push('--ro-bind', dir, dir);
  }
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  for (const dir of spec.readOnly) args.push('--ro-bind', dir, dir);
  for (const dir of spec.writable) args.push('--bind', dir, dir);
  args.push('--chdir', spec.cwd);
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
    '--',
  ];
}
