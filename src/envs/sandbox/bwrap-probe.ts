import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileInfo } from './bwrap-argv.js';

/** Whether bubblewrap can make sandboxes on this machine. */
export type BwrapProbe = { available: true; version: string } | { available: false; reason: string };

/**
 * Runs bubblewrap once with the namespaces a sandbox uses (`bwrap --unshare-all ... true`): having the
 * binary is not enough, since user namespaces can be disabled (a container without them, a kernel setting).
 * The answer says why not, in words a user can act on.
 */
export function probeBwrap(bwrap: string): BwrapProbe {
  const version = spawnSync(bwrap, ['--version'], { encoding: 'utf8', timeout: 5000 });
  if (version.error) {
    const code = (version.error as NodeJS.ErrnoException).code;
    return {
      available: false,
      reason:
        code === 'ENOENT'
          ? `"${bwrap}" was not found (install the bubblewrap package)`
          : `"${bwrap} --version" failed: ${version.error.message}`,
    };
  }
  const trial = spawnSync(
    bwrap,
    [
      '--ro-bind',
      '/',
      '/',
      '--unshare-all',
      '--die-with-parent',
      '--new-session',
      '--cap-drop',
      'ALL',
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      'true',
    ],
    {
      encoding: 'utf8',
      timeout: 5000,
      env: {},
    },
  );
  if (trial.status !== 0) {
    const why = (trial.stderr || trial.error?.message || `exit ${trial.status ?? trial.signal}`).trim();
    return { available: false, reason: `bubblewrap cannot create namespaces here: ${why}` };
  }
  return { available: true, version: version.stdout.trim() };
}

/**
 * A bwrap binary that works here, or undefined: the first of `candidates` (default: `bwrap` in each folder of
 * PATH) that is a file and passes {@link probeBwrap}. Runs the probe, so call it once and keep the answer.
 */
export function findBwrap(
  candidates: readonly string[] = (process.env.PATH ?? '/usr/bin:/bin').split(delimiter).map((d) => join(d, 'bwrap')),
): string | undefined {
  return candidates.find((bin) => fileInfo(bin, statSync)?.isFile() && probeBwrap(bin).available);
}
