import { lstatSync, readdirSync, realpathSync } from 'node:fs';
import { join, relative, isAbsolute } from 'node:path';

/** Most entries checked under one folder (a workflow run with its fork branches stays far below it). */
const MAX_ENTRIES = 50_000;

/** True when `path` is `root` or inside it (both real, absolute paths). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Why the board may not read `dir` (a folder it listed under `root`), or undefined when it may: the folder's real
 * path must be inside the root's, and so must every symbolic link under it (a trace's steps.jsonl linked to a file
 * elsewhere would otherwise be shown to whoever opens the run). The folder is checked each time it is opened, so a
 * folder swapped for a link after it was listed is refused too.
 */
export function folderOutsideRoot(root: string, dir: string): string | undefined {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch (err) {
    return `${dir} cannot be read: ${(err as Error).message}`;
  }
  if (!isInside(root, real)) return `${dir} resolves to ${real}, outside the board's folder ${root}`;
  let seen = 0;
  const walk = (folder: string): string | undefined => {
    for (const e of readdirSync(folder, { withFileTypes: true })) {
      if (++seen > MAX_ENTRIES) return `${dir} holds more than ${MAX_ENTRIES} files`;
      const path = join(folder, e.name);
      if (e.isSymbolicLink()) {
        let target: string;
        try {
          target = realpathSync(path);
        } catch {
          continue; // a dangling link reads as a missing file
        }
        if (!isInside(root, target)) return `${path} links to ${target}, outside the board's folder ${root}`;
        if (lstatSync(target).isDirectory()) {
          const inner = walk(target);
          if (inner) return inner;
        }
      } else if (e.isDirectory()) {
        const inner = walk(path);
        if (inner) return inner;
      }
    }
    return undefined;
  };
  try {
    return walk(real);
  } catch (err) {
    return `${dir} cannot be checked: ${(err as Error).message}`;
  }
}
