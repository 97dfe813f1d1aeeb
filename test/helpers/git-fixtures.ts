/** Git repositories for the RepoEnv tests, made with the real git in temp folders. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** git with a fixed identity and no user or system config, so the tests do not depend on the machine. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    'git',
    [
      '-c',
      'user.name=Test',
      '-c',
      'user.email=test@example.com',
      '-c',
      'commit.gpgsign=false',
      '-c',
      'init.defaultBranch=main',
      ...args,
    ],
    {
      cwd,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: cwd,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        LANG: 'C',
      },
    },
  );
}

/** Writes files (path -> content) under `dir`, making folders. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    writeFileSync(path.join(dir, p), c);
  }
}

/**
 * A repository with one commit per entry of `commits` (each: files to write), tagged `v1`, `v2`, ...; returns its
 * folder and commit ids.
 */
export function makeRepo(commits: Array<Record<string, string>>): {
  dir: string;
  commits: string[];
  cleanup: () => void;
} {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'qitos-src-')));
  const dir = path.join(base, 'src');
  mkdirSync(dir);
  git(dir, 'init', '-q');
  const ids: string[] = [];
  commits.forEach((files, i) => {
    writeFiles(dir, files);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', `commit ${i + 1}`);
    git(dir, 'tag', `v${i + 1}`);
    ids.push(git(dir, 'rev-parse', 'HEAD').trim());
  });
  return { dir, commits: ids, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

/** What a repository looks like from outside: refs, HEAD, status and the object count (to prove nothing wrote to it). */
export function repoFingerprint(dir: string): string {
  return [
    git(dir, 'show-ref'),
    git(dir, 'rev-parse', 'HEAD'),
    git(dir, 'status', '--porcelain', '--ignored'),
    git(dir, 'worktree', 'list', '--porcelain'),
    git(dir, 'count-objects', '-v'),
  ].join('\n');
}
