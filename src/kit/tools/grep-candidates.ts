import type { FileOps } from '../../core/index.js';
import { toolError } from './tool-env.js';

/** The files one grep call searches, in path order. */
export interface GrepCandidates {
  files: string[];
  /** More than `maxFiles` matched; `files` holds the first `maxFiles`. */
  tooMany: boolean;
}

/**
 * The files a grep call searches: `root` itself when it is a file, else what `include` (default every file)
 * matches below it, minus what `exclude` matches, at most `maxFiles`.
 */
export async function grepCandidates(
  files: FileOps,
  root: string,
  include: string | undefined,
  exclude: string | undefined,
  maxFiles: number,
): Promise<GrepCandidates> {
  const st = await files.stat(root);
  if (!st) throw toolError(`path not found: "${root}".`);
  if (st.type === 'file') return { files: [st.path], tooMany: false };
  let found = await files.glob(include ?? '**/*', { cwd: root, limit: maxFiles + 1 });
  if (exclude) {
    const excluded = new Set(await files.glob(exclude, { cwd: root }));
    found = found.filter((c) => !excluded.has(c));
  }
  return found.length > maxFiles
    ? { files: found.slice(0, maxFiles), tooMany: true }
    : { files: found, tooMany: false };
}
