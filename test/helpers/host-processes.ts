import { readdirSync, readFileSync } from 'node:fs';

/**
 * Pids of host processes that have `arg` as one of their arguments, read from the host's /proc (so PID
 * namespaces do not hide them). Tests give their commands a unique argument (`sleep 31.4159`) to find them.
 */
export function processesWithArg(arg: string): number[] {
  const out: number[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(arg)) out.push(Number(pid));
    } catch {
      // it exited while we looked: not running
    }
  }
  return out;
}

/** Polls `check` until it holds or `ms` pass; the answer is whether it held (outcome, not timing, is what tests assert). */
export async function eventually(check: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}

/** Like {@link eventually}, but throws naming what never happened. */
export async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  if (!(await eventually(check, ms))) throw new Error(`timed out waiting for ${what}`);
}
