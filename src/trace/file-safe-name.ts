import { shortHash } from './short-hash.js';

/**
 * A name taken from a trace (a run id, a task id) made safe as one file name: letters, digits, `.`, `_` and `-`
 * only, no leading dot (so never `.` or `..`), at most `maxLength` characters, then `-` and 8 hex digits of the
 * original's hash when anything changed (so distinct names stay distinct). `lowerCase` also folds case, for
 * names that must not collide on a case-insensitive file system.
 */
export function fileSafeName(text: string, opts: { maxLength?: number; lowerCase?: boolean } = {}): string {
  const folded = opts.lowerCase ? text.toLowerCase() : text;
  const safe =
    folded
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .replace(/^\./, '_')
      .slice(0, opts.maxLength ?? 80) || '_';
  return safe === text ? safe : `${safe}-${shortHash(text).slice(0, 8)}`;
}
