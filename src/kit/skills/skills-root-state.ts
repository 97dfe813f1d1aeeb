import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { link, mkdir, open, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { errorMessage } from '../../core/index.js';

/**
 * The bookkeeping folder of a skills root: `<root>/.qitos/` holds the lock, the journal of an operation in
 * progress, `staging/` (ZIPs being unpacked), `trash/` (folders being removed) and `index/` (retrieval
 * indexes). Discovery skips dot-folders, so none of it is ever taken for a skill. Everything in it is on the same
 * file system as the skills, so a rename between them is atomic.
 */
export function stateDir(root: string): string {
  return join(root, '.qitos');
}

/** An operation whose steps cannot all be one rename: written before its first step, removed after its last. */
export const Journal = z.object({
  op: z.literal('replace'),
  /** The skill folder being replaced. */
  target: z.string(),
  /** Where the old folder is moved first. */
  old: z.string(),
  /** The new folder, unpacked and checked, waiting in staging. */
  next: z.string(),
});
export type Journal = z.infer<typeof Journal>;

const LockOwner = z.object({ pid: z.number().int(), host: z.string(), since: z.string() });

/** Options of {@link withRootLock}. */
export interface RootLockOptions {
  /** How long to wait for another holder (default 10 s). */
  timeoutMs?: number;
}

/**
 * Runs `fn` while holding the lock of a skills root (`.qitos/lock`, created exclusively, holding the pid). A
 * lock whose process is gone (same host) is taken over. Before `fn` runs, whatever the last holder left half
 * done is settled: an interrupted replace is rolled back or forward by its journal, and `staging/` and `trash/`
 * are emptied. So every mutation of a root is all-or-nothing across process crashes.
 */
export async function withRootLock<T>(root: string, fn: () => Promise<T>, options: RootLockOptions = {}): Promise<T> {
  const dir = stateDir(root);
  await mkdir(dir, { recursive: true });
  const lock = join(dir, 'lock');
  const mine = JSON.stringify({
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  });
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    try {
      const fh = await open(lock, 'wx');
      await fh.writeFile(mine);
      await fh.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new Error(`cannot lock skills root ${root}: ${errorMessage(err)}`, { cause: err });
    }
    const owner = await readOwner(lock);
    if (owner && !owner.alive) {
      await takeOver(lock, owner.text);
      continue;
    }
    if (Date.now() > deadline) {
      const who = owner?.info
        ? `process ${owner.info.pid} on ${owner.info.host} since ${owner.info.since}`
        : 'another process';
      throw new Error(
        `skills root ${root} is locked by ${who}; wait for it to finish, or remove ${lock} if that process is gone`,
      );
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  try {
    await settle(root);
    return await fn();
  } finally {
    // Remove the lock only if it is still ours (never another holder's after a wrongful take-over).
    if ((await readFile(lock, 'utf8').catch(() => '')) === mine) await unlink(lock);
  }
}

/**
 * Removes a lock whose process is gone. It is renamed aside first and checked: if what was renamed is not the
 * dead owner's lock (another process took over and locked meanwhile), it is linked back (never over a lock).
 */
async function takeOver(lock: string, deadText: string): Promise<void> {
  const aside = `${lock}.stale-${randomBytes(4).toString('hex')}`;
  const moved = await rename(lock, aside).then(
    () => true,
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return false; // someone else removed it first
      throw err;
    },
  );
  if (!moved) return;
  if ((await readFile(aside, 'utf8')) !== deadText) await link(aside, lock).catch(() => undefined);
  await rm(aside, { force: true });
}

/** The lock's owner and whether it still runs (a lock being written is treated as alive). */
async function readOwner(
  lock: string,
): Promise<{ text: string; info?: z.infer<typeof LockOwner>; alive: boolean } | undefined> {
  const text = await readFile(lock, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined; // released meanwhile: try again
    throw err;
  });
  if (text === undefined) return undefined;
  let info: z.infer<typeof LockOwner>;
  try {
    info = LockOwner.parse(JSON.parse(text));
  } catch {
    return { text, alive: true }; // written but not yet filled in: its owner is alive by definition
  }
  return { text, info, alive: info.host !== hostname() || isAlive(info.pid) };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

/** Writes the journal (synced, then renamed into place) before the first step of a multi-step operation. */
export async function writeJournal(root: string, journal: Journal): Promise<void> {
  const path = join(stateDir(root), 'journal.json');
  const tmp = `${path}.${randomBytes(4).toString('hex')}`;
  const fh = await open(tmp, 'wx');
  try {
    await fh.writeFile(JSON.stringify(journal));
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, path);
}

/** Removes the journal after the last step. */
export async function clearJournal(root: string): Promise<void> {
  await rm(join(stateDir(root), 'journal.json'), { force: true });
}

/** A fresh, empty folder in `staging/` or `trash/` (same file system as the skills). */
export async function scratchDir(root: string, kind: 'staging' | 'trash', label: string): Promise<string> {
  const dir = join(stateDir(root), kind, `${label}-${randomBytes(6).toString('hex')}`);
  await mkdir(join(dir, '..'), { recursive: true });
  return dir;
}

/** True when a crashed lock holder left something to settle (a journal, or anything in staging or trash). */
export async function needsSettling(root: string): Promise<boolean> {
  const dir = stateDir(root);
  if (await stat(join(dir, 'journal.json')).catch(() => undefined)) return true;
  for (const kind of ['staging', 'trash']) if ((await readdir(join(dir, kind)).catch(() => [])).length) return true;
  return false;
}

/** Settles what a crashed holder left: journal first, then the scratch folders. Called under the lock. */
async function settle(root: string): Promise<void> {
  const dir = stateDir(root);
  const path = join(dir, 'journal.json');
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (text !== undefined) {
    const parsed = Journal.safeParse(JSON.parse(text));
    if (!parsed.success)
      throw new Error(
        `skills root ${root}: ${path} is damaged (${parsed.error.issues[0].message}); check the skill folders and remove it`,
      );
    const j = parsed.data;
    const exists = async (p: string) => (await stat(p).catch(() => undefined)) !== undefined;
    // The target is there (old or new): nothing to undo. It is gone and the old folder waits in trash: put it back.
    if (!(await exists(j.target)) && (await exists(j.old))) await rename(j.old, j.target);
    await unlink(path);
  }
  await rm(join(dir, 'staging'), { recursive: true, force: true });
  await rm(join(dir, 'trash'), { recursive: true, force: true });
}
