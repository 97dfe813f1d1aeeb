import { fileURLToPath } from 'node:url';
import { sep } from 'node:path';

/**
 * The qitos-ts package folder: this file is `<root>/src/trace/first-user-frame.ts` in a checkout and
 * `<root>/dist/trace/first-user-frame.js` when installed, so the root is two folders up either way.
 */
const OWN_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `    at fn (location)` or `    at location`, where location is `file:line:col`. */
const FRAME = /^\s*at (?:(.+?) \()?(.+?):(\d+):(\d+)\)?$/;

/**
 * The first frame of a stack trace that is the user's own code, as `file:line:col`: the first one outside
 * qitos-ts's own `src/` and `dist/`, `node_modules` and node's internals. Undefined when every frame is
 * someone else's (a bug in qitos-ts itself) or the stack has no frames. `ownRoot` is the qitos-ts package
 * folder (this package's, unless a test says otherwise).
 */
export function firstUserFrame(stack: string, ownRoot: string = OWN_ROOT): string | undefined {
  const root = ownRoot.endsWith(sep) ? ownRoot : ownRoot + sep;
  for (const line of stack.split('\n')) {
    if (line.startsWith('caused by: ')) break; // the causes' frames are where the error was wrapped, not thrown
    const m = FRAME.exec(line);
    if (!m) continue;
    let file = m[2];
    if (file.startsWith('async ')) file = file.slice('async '.length);
    if (file.startsWith('file://')) {
      try {
        file = fileURLToPath(file);
      } catch {
        continue;
      }
    }
    if (!isUserFile(file, root)) continue;
    return `${file}:${m[3]}:${m[4]}`;
  }
  return undefined;
}

function isUserFile(file: string, root: string): boolean {
  if (file.startsWith('node:') || file.startsWith('internal/') || file === '<anonymous>' || file === 'native')
    return false;
  if (file.includes(`${sep}node_modules${sep}`) || file.includes('/node_modules/')) return false;
  return !(file.startsWith(`${root}src${sep}`) || file.startsWith(`${root}dist${sep}`));
}
