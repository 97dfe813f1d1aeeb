// Its declarations name Node's types: the reference lets a consumer whose tsconfig lacks `types: ["node"]` find them.
/// <reference types="node" preserve="true" />
import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { EnvError } from '../core/index.js';

const MAX_SYMLINK_HOPS = 40;

/** Throws EnvError unless `p` is a usable path string: non-empty, no NUL byte. */
export function checkPathInput(p: unknown): string {
  if (typeof p !== 'string') throw new EnvError(`path must be a string, got ${p === null ? 'null' : typeof p}`);
  if (p.length === 0)
    throw new EnvError('path is empty: give a path relative to the workspace root (use "." for the root itself)');
  if (p.includes('\0')) throw new EnvError(`path ${JSON.stringify(p)} contains a NUL byte`);
  return p;
}

/**
 * True when `target` is `root` or below it. Compares with `path.relative`, never a string prefix, so
 * `/ws2` is not inside `/ws`. Both paths must be absolute and normalized.
 */
export function isInside(root: string, target: string, api: path.PlatformPath = path): boolean {
  const rel = api.relative(root, target);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${api.sep}`) && !api.isAbsolute(rel));
}

/**
 * Resolves `p` against `root` lexically (`..` and `.` collapsed, absolute paths taken as they are) and
 * throws EnvError when the result leaves the root. Used as is by envs without symlinks (MemoryEnv), and as
 * the first stage of {@link PathJail.resolve}.
 */
export function resolveLexical(root: string, p: unknown, api: path.PlatformPath = path): string {
  const input = checkPathInput(p);
  const abs = api.resolve(root, input);
  if (!isInside(root, abs, api)) throw new EnvError(`path "${input}" is outside the workspace root ${root}`);
  return abs;
}

/**
 * Where `p` (relative to `root`, or absolute) lands on disk: its absolute path with every symlink on it followed,
 * also one that leads out of `root`, and the part that does not exist appended as written. Unlike
 * {@link PathJail.resolve} it refuses nothing: permission rules judge where a path lands (docs/permissions.md).
 */
export async function landingPath(root: string, p: unknown): Promise<string> {
  let hops = 0;
  const land = async (abs: string): Promise<string> => {
    for (;;) {
      const real = await realpath(abs).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return undefined;
        throw new EnvError(`cannot tell where "${String(p)}" leads: ${err.code ?? err.message}`, { cause: err });
      });
      if (real !== undefined) return real;
      const parent = path.dirname(abs);
      if (parent === abs) return abs;
      const candidate = path.join(await land(parent), path.basename(abs));
      const st = await lstat(candidate).catch(() => undefined);
      if (!st?.isSymbolicLink()) return candidate;
      // A dangling link: a write through it creates its target.
      if (++hops > MAX_SYMLINK_HOPS)
        throw new EnvError(`path "${String(p)}" has too many levels of symlinks (more than ${MAX_SYMLINK_HOPS})`);
      abs = path.resolve(path.dirname(candidate), await readlink(candidate));
    }
  };
  return land(path.resolve(root, checkPathInput(p)));
}

/**
 * The workspace jail of a host env. Every path is resolved (absolute or relative, `..`, symlinks) before
 * use, and must stay inside the root at every step:
 * - `..` in the given path collapses lexically (like `path.resolve`) and the result must be inside the root;
 * - then each component is looked up on disk; a symlink is followed only while its target stays inside the
 *   root (relative targets are walked component by component, with `..` taken physically); a symlink whose
 *   target leaves the root makes the whole path refused, for reads and writes alike;
 * - components that do not exist yet are appended as they are (a write creates them below a real folder).
 * Shortcut: an existing path is answered by one `realpath`; a real path inside the root is accepted even when a
 * link on the way went out and came back in (the answer is that real path, with no symlink left in it).
 * The answer is the real absolute path, so callers never hand the OS a path with a symlink in it.
 */
export class PathJail {
  /** The root as a real path (symlinks in the root's own path resolved once, at construction). */
  constructor(readonly root: string) {
    if (!path.isAbsolute(root)) throw new Error(`PathJail root must be absolute, got "${root}"`);
  }

  /** The real absolute path of `p` inside the root, or an EnvError naming why it is refused. */
  async resolve(p: unknown): Promise<string> {
    const input = checkPathInput(p);
    const lexical = resolveLexical(this.root, input);
    // Fast path: an existing path whose real location is inside is answered by one realpath call. Anything
    // else (missing components, a dangling link, a real path outside) takes the walk below, which decides
    // component by component and names the symlink that leaves the root.
    const real = await realpath(lexical).catch(() => undefined);
    if (real !== undefined && isInside(this.root, real)) return real;
    const queue = path.relative(this.root, lexical).split(path.sep).filter(Boolean);
    let current = this.root;
    let hops = 0;
    while (queue.length) {
      const comp = queue.shift()!;
      if (comp === '.') continue;
      if (comp === '..') {
        // Only reachable through a symlink target: walking above the root is an escape.
        if (current === this.root)
          throw new EnvError(
            `path "${input}" resolves through a symlink to a place outside the workspace root ${this.root}`,
          );
        current = path.dirname(current);
        continue;
      }
      const candidate = path.join(current, comp);
      const st = await lstat(candidate).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return undefined;
        throw new EnvError(`cannot resolve "${input}": ${err.code ?? err.message} at ${this.show(candidate)}`, {
          cause: err,
        });
      });
      if (!st) {
        // The rest does not exist: nothing below can be a symlink. Collapse what is left and check it.
        const rest = path.resolve(candidate, ...queue);
        if (!isInside(this.root, rest))
          throw new EnvError(
            `path "${input}" resolves through a symlink to a place outside the workspace root ${this.root}`,
          );
        return rest;
      }
      if (!st.isSymbolicLink()) {
        current = candidate;
        continue;
      }
      if (++hops > MAX_SYMLINK_HOPS)
        throw new EnvError(`path "${input}" has too many levels of symlinks (more than ${MAX_SYMLINK_HOPS})`);
      const target = await readlink(candidate).catch((err: NodeJS.ErrnoException) => {
        // The link was removed or replaced between the lstat and here (another process is changing the tree).
        throw new EnvError(
          `path "${input}" changed while it was being resolved (${this.show(candidate)}: ${err.code ?? err.message}); try again`,
          { cause: err },
        );
      });
      if (path.isAbsolute(target)) {
        const t = path.normalize(target);
        if (!isInside(this.root, t))
          throw new EnvError(
            `path "${input}" goes through symlink "${this.show(candidate)}" that points outside the ` +
              `workspace (to ${target}); it is not followed`,
          );
        current = this.root;
        queue.unshift(...path.relative(this.root, t).split(path.sep).filter(Boolean));
      } else {
        queue.unshift(...target.split(path.sep).filter(Boolean));
        // A relative target is walked from the link's folder, `..` physically, so an escape is caught above.
        if (!isInside(this.root, path.resolve(current, target))) {
          throw new EnvError(
            `path "${input}" goes through symlink "${this.show(candidate)}" that points outside the ` +
              `workspace (to ${target}); it is not followed`,
          );
        }
      }
    }
    if (!isInside(this.root, current)) throw new EnvError(`path "${input}" is outside the workspace root ${this.root}`);
    return current;
  }

  /** A path for messages: relative to the root, `.` for the root itself, posix separators. */
  show(abs: string): string {
    const rel = path.relative(this.root, abs);
    return rel === '' ? '.' : rel.split(path.sep).join('/');
  }
}
