import { open, readFile, rm, stat } from 'node:fs/promises';

/** Options of {@link withFileLock}. */
export interface FileLockOptions {
  /** Give up after this long (default 10 s): the error names the lock file. */
  timeoutMs?: number;
  /** A lock older than this whose holder is not a live process here is taken over (default 30 s). */
  staleMs?: number;
}

/**
 * Runs `fn` holding `<path>.lock`, a lock file created exclusively (`O_EXCL`) that every process using `path`
 * respects; it holds the holder's pid. A lock left by a process that died (no such pid, and older than `staleMs`)
 * is removed. Only processes of this machine can be told apart, which is what a notes file in a workspace needs.
 */
export async function withFileLock<T>(path: string, fn: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const lock = `${path}.lock`;
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  const staleMs = options.staleMs ?? 30_000;
  for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
    const handle = await open(lock, 'wx').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'EEXIST') return undefined;
      throw err;
    });
    if (handle) {
      try {
        await handle.writeFile(String(process.pid));
      } finally {
        await handle.close();
      }
      try {
        return await fn();
      } finally {
        await rm(lock, { force: true });
      }
    }
    if (await isStale(lock, staleMs)) {
      await rm(lock, { force: true });
      continue;
    }
    if (Date.now() > deadline)
      throw new Error(`${path} is locked by another process (${lock}); remove the lock file if no qitos run uses it`);
    await new Promise((r) => setTimeout(r, wait + Math.random() * wait));
  }
}

/** A lock whose holder is gone: older than `staleMs` and its pid is no live process here (or it never wrote one). */
async function isStale(lock: string, staleMs: number): Promise<boolean> {
  const info = await stat(lock).catch(() => undefined);
  if (!info || Date.now() - info.mtimeMs < staleMs) return false;
  const pid = Number(await readFile(lock, 'utf8').catch(() => ''));
  if (!Number.isInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
