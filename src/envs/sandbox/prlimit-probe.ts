import { spawnSync } from 'node:child_process';

/** Whether `prlimit` (util-linux), which applies the kernel limits of sandboxed commands and skill scripts, runs here. */
export function hasPrlimit(): boolean {
  return !spawnSync('prlimit', ['--version'], { timeout: 5000, stdio: 'ignore' }).error;
}
