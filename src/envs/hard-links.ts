import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';

/** Most entries {@link namesInside} looks at before it gives up. */
export const MAX_LINK_SEARCH = 100_000;

/**
 * How many names below `root` (symlinks not followed) are hard links to the file with this device and
 * inode, or undefined when the folder holds more than `maxEntries` entries and the count cannot be
 * trusted. A write to a file with more links than this count would change a file outside the root.
 */
export async function namesInside(
  root: string,
  file: { dev: bigint; ino: bigint },
  maxEntries = MAX_LINK_SEARCH,
): Promise<number | undefined> {
  let seen = 0;
  let found = 0;
  const folders = [root];
  while (folders.length) {
    const dir = folders.pop()!;
    const entries = await readdir(dir, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
      // A folder removed or unreadable during the search holds no name we can count.
      if (err.code === 'ENOENT' || err.code === 'EACCES' || err.code === 'ENOTDIR') return [];
      throw err;
    });
    for (const e of entries) {
      if (++seen > maxEntries) return undefined;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) folders.push(p);
      else if (e.isFile()) {
        const st = await lstat(p, { bigint: true }).catch((err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return undefined; // removed during the search
          throw err;
        });
        if (st && st.ino === file.ino && st.dev === file.dev) found++;
      }
    }
  }
  return found;
}
