import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { it } from 'vitest';
import { findBwrap } from '../../src/envs/sandbox/index.js';

/** The Chromium the browser tests drive (the Debian package's path). */
export const CHROMIUM = '/usr/bin/chromium';

/** A system program some tests cannot run without, and how a user gets it. */
const PROGRAMS = {
  bwrap: {
    what: 'a working bubblewrap',
    install: 'apt-get install -y bubblewrap',
    here: () => findBwrap() !== undefined,
  },
  chromium: { what: CHROMIUM, install: 'apt-get install -y chromium', here: () => existsSync(CHROMIUM) },
  prlimit: { what: 'prlimit', install: 'apt-get install -y util-linux', here: () => onPath('prlimit') },
  perl: { what: 'perl', install: 'apt-get install -y perl', here: () => onPath('perl') },
  python3: { what: 'python3', install: 'apt-get install -y python3', here: () => onPath('python3') },
  docker: {
    what: 'a docker CLI with a running engine',
    install: 'install Docker Engine (https://docs.docker.com/engine/install/)',
    here: () => spawnSync('docker', ['info'], { timeout: 10_000 }).status === 0,
  },
} as const;

export type Program = keyof typeof PROGRAMS;

/** Answers per program, per test file (vitest loads this module once per file): each probe runs once. */
const known = new Map<Program, boolean>();

/**
 * Whether every one of `programs` is on this machine; use it as `describe.runIf(requires('bwrap'))(...)`.
 * A missing program prints ONE line naming what to install, and the tests skip; but when `CI` is set (the CI
 * installs them all), a missing program is a failing test instead, so nothing skips there unnoticed.
 */
export function requires(...programs: Program[]): boolean {
  let all = true;
  for (const name of programs) {
    let here = known.get(name);
    if (here === undefined) {
      here = PROGRAMS[name].here();
      known.set(name, here);
      if (!here) {
        const line = `needs ${PROGRAMS[name].what}, which this machine lacks: ${PROGRAMS[name].install}`;
        if (ciIsSet()) {
          it(`the machine has what these tests need (${name})`, () => {
            throw new Error(`CI is set, so a test may not skip: ${line}`);
          });
        } else {
          process.stderr.write(`[skipped] ${testFile()} ${line}\n`);
        }
      }
    }
    all &&= here;
  }
  return all;
}

/** CI=true (or any value but "", "0" and "false"), as CI services set it. */
export function ciIsSet(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.CI?.trim().toLowerCase();
  return v !== undefined && v !== '' && v !== '0' && v !== 'false';
}

function onPath(program: string): boolean {
  return !spawnSync(program, ['--version'], { timeout: 10_000, stdio: 'ignore' }).error;
}

/** The test file that asked, for the skip line (vitest sets its path in the worker's state). */
function testFile(): string {
  const state = (globalThis as { __vitest_worker__?: { filepath?: string } }).__vitest_worker__;
  const file = state?.filepath;
  return file ? file.slice(file.indexOf('/test/') + 1) : 'a test file';
}
