import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Every file below `dir` with its content, keyed by path relative to `dir` (symlinks as `-> symlink`, never
 * followed), in sorted order: compare two snapshots to prove a test changed nothing there.
 */
export function fileTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name);
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out[path.relative(dir, p)] = '-> symlink';
      else if (st.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}
