import { closeSync, constants, existsSync, fstatSync, open as openCb, readlinkSync } from 'node:fs';
import { lstat, mkdir, realpath } from 'node:fs/promises';
import { promisify } from 'node:util';
import path from 'node:path';
import { EnvError } from '../core/index.js';
import { isInside, type PathJail } from './path-jail.js';

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const openFd = promisify(openCb);

/**
 * A folder inside the jail held open by a descriptor, so that names in it are reached through the descriptor
 * and not through the folder's path. A path is checked and then used; between the two, another process (a
 * command the agent runs) can rename a folder on it and put a symlink to `/etc` in its place. Reaching
 * `name` as `/proc/self/fd/<fd>/<name>` (Linux's way of saying openat) makes the path above the folder
 * irrelevant: the descriptor stays on the folder that was checked.
 *
 * How a folder gets its descriptor:
 * - {@link DirAnchors.open}: the folder's path is opened (`O_DIRECTORY | O_NOFOLLOW`), then the real path of
 *   the descriptor is read back from `/proc/self/fd` and must be inside the root; a swapped component shows
 *   there, whatever the path said a moment before.
 * - {@link DirAnchors.create}: from the root's descriptor down, one component at a time, each opened with
 *   `O_NOFOLLOW` relative to the one above (created when missing), so no symlink is ever followed.
 * - {@link AnchoredDir.child}: a sub-folder opened relative to this one with `O_NOFOLLOW`.
 */
export class AnchoredDir {
  constructor(
    private readonly fd: number,
    /** `/proc/self/fd/<fd>` on Linux; the checked real path where there is no `/proc/self/fd`. */
    readonly self: string,
    private readonly anchors: DirAnchors,
  ) {}

  /** A path that names `name` in this folder (one component, never `..`). */
  at(name: string): string {
    if (!name || name === '..' || name.includes('/'))
      throw new Error(`AnchoredDir.at takes one name, got ${JSON.stringify(name)}`);
    return `${this.self}/${name}`;
  }

  /** The sub-folder `name`, opened without following a symlink (ELOOP / ENOTDIR when it is not a folder). */
  child(name: string): Promise<AnchoredDir> {
    return this.anchors.openAt(this, name);
  }

  /** Closes the descriptor (synchronously: closing a folder never waits on the disk). */
  close(): void {
    closeSync(this.fd);
  }
}

/**
 * Opens folders of one jail as {@link AnchoredDir}s. On Linux (where `/proc/self/fd` exists) every name is
 * reached through a held descriptor, which closes the check-then-use race completely. Elsewhere the folder's
 * real path is checked right after it is opened and must name the same folder (device and inode) as the
 * descriptor; names are then reached through that real path, which leaves a short window in which a swap is
 * possible.
 */
export class DirAnchors {
  /** True when names are reached through `/proc/self/fd` (race-free). */
  readonly viaProc: boolean;

  constructor(
    private readonly jail: PathJail,
    options: { viaProc?: boolean } = {},
  ) {
    this.viaProc = options.viaProc ?? existsSync('/proc/self/fd');
  }

  /** The existing folder at `abs` (a real path inside the root, as {@link PathJail.resolve} returns). */
  async open(abs: string): Promise<AnchoredDir> {
    const fd = await openFd(abs, DIR_FLAGS);
    try {
      return await this.checked(fd, abs);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /** The folder at `abs`, creating missing folders on the way, one component at a time from the root. */
  async create(abs: string): Promise<AnchoredDir> {
    let dir = await this.open(this.jail.root);
    for (const comp of path.relative(this.jail.root, abs).split(path.sep).filter(Boolean)) {
      try {
        await mkdir(dir.at(comp)).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'EEXIST') throw err;
        });
        const next = await dir.child(comp);
        dir.close();
        dir = next;
      } catch (err) {
        dir.close();
        throw err;
      }
    }
    return dir;
  }

  /** @internal see {@link AnchoredDir.child}. */
  async openAt(parent: AnchoredDir, name: string): Promise<AnchoredDir> {
    const fd = await openFd(parent.at(name), DIR_FLAGS);
    if (this.viaProc) return new AnchoredDir(fd, `/proc/self/fd/${fd}`, this);
    try {
      return await this.checked(fd, path.join(parent.self, name));
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /** Checks that the opened folder is inside the root and wraps it. */
  private async checked(fd: number, abs: string): Promise<AnchoredDir> {
    const refuse = () =>
      new EnvError(
        `path "${this.jail.show(abs)}" changed while it was being opened (a folder on it was ` +
          `replaced, e.g. by a symlink that leads outside the workspace); it was not used`,
      );
    if (this.viaProc) {
      const self = `/proc/self/fd/${fd}`;
      // Synchronous: /proc answers from memory, and a trip through the thread pool would cost more than the call.
      const real = readlinkSync(self);
      if (!path.isAbsolute(real) || !isInside(this.jail.root, real.replace(/ \(deleted\)$/, ''))) throw refuse();
      return new AnchoredDir(fd, self, this);
    }
    const real = await realpath(abs);
    const held = fstatSync(fd);
    const there = await lstat(real);
    if (!isInside(this.jail.root, real) || held.dev !== there.dev || held.ino !== there.ino) throw refuse();
    return new AnchoredDir(fd, real, this);
  }
}
