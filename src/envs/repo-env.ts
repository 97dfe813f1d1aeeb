import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Env, EnvArtifact, FileOps, OpGroups, ProcessOps, Task } from '../core/index.js';
import { EnvError } from '../core/index.js';
import { HostEnv, type HostEnvOptions } from './host-env.js';
import { PLUMBING_OUTPUT_CAP, plumbingEnv } from './plumbing-env.js';
import { runProcessBytes } from './sandbox/run-process.js';

/** A changed file of a RepoEnv workspace, against the base commit. */
export interface RepoFileChange {
  path: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed' | 'copied' | 'type_changed';
  /** The old path of a rename or copy. */
  from?: string;
}

/** The agent's changes: a patch `git apply` takes (unless cut at the size limit), and the changed files. */
export interface RepoDiff {
  baseCommit: string;
  patch: string;
  files: RepoFileChange[];
  /** The patch passed `maxDiffBytes` and was cut (it is then not a valid patch). */
  truncated: boolean;
}

/** The `repo` op group: the workspace's base commit, the diff of the changes since, and a reset to it. */
export interface RepoOps {
  readonly root: string;
  readonly baseCommit: string;
  diff(options?: { signal?: AbortSignal }): Promise<RepoDiff>;
  reset(): Promise<void>;
}

/** Options of a RepoEnv. Only `repo` is required. */
export interface RepoEnvOptions {
  /** The source repository: a folder in a git work tree, or a bare repository, on this machine. It is never written. */
  repo: string;
  /** The commit the workspace starts from: a ref, tag or commit id, or a function of the task (default `HEAD`). */
  ref?: string | ((task: Task) => string | undefined);
  /** Parent folder of the temporary workspace (default the OS temp folder). */
  tmpDir?: string;
  /** Keep the workspace after the run (`dispose()` removes it), e.g. for a scorer that runs the tests. Default false. */
  keep?: boolean;
  /** Largest patch kept, in bytes (default 10 MiB); a larger one is cut and marked. */
  maxDiffBytes?: number;
  /** Timeout of one git command, ms (default 120 000). */
  gitTimeoutMs?: number;
  /** The git program (default `git` on PATH). */
  git?: string;
  /** Options of the workspace's file and process ops (see HostEnvOptions). */
  host?: Omit<HostEnvOptions, 'root' | 'create' | 'name'>;
  /** Name recorded in the trace (default `repo`). */
  name?: string;
}

// Settings on every git command of ours: no hooks, no fsmonitor, no lazy fetch of missing objects, plain paths. The
// workspace has no .git of its own; these make sure nothing in the source repo's config runs either.
const GIT_SAFETY = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'protocol.allow=never',
  '-c',
  'core.quotePath=false',
  '-c',
  'core.bare=false',
  '-c',
  'gc.auto=0',
  '-c',
  'maintenance.auto=false',
];
const STATUS: Record<string, RepoFileChange['status']> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
  T: 'type_changed',
};

/**
 * An env over a checkout of a git repository at a base commit, in a temporary folder: the agent works on real files
 * (`file` and `process` ops, jailed as in HostEnv), and the env can tell what it changed (`repo` ops: the diff against
 * the base, and a reset to it).
 *
 * Isolation: the repository data lives in a private shared clone next to the workspace (`<tmp>/git`, outside the
 * jail), so the workspace holds only the checked-out files: the agent cannot move the source repository's branches,
 * and nothing it writes (a `.git` folder, `.gitattributes`, hooks) can make the env's own git commands run code.
 * The source repository is read, never written.
 *
 * Lifecycle: `setup(task)` checks out the task's base commit (a fresh copy, or a reset of the last one), the run
 * works, `artifacts()` leaves `repo.diff` in the trace, `close()` removes the temporary folder (unless `keep`). One
 * RepoEnv serves one run at a time; give concurrent runs their own.
 */
export class RepoEnv implements Env {
  readonly name: string;
  /** The source repository (absolute). */
  readonly repo: string;
  private tmp: string | undefined;
  private host: HostEnv | undefined;
  private commit: string | undefined;
  private busy = false;
  private readonly repoOps: RepoOps;
  /** The diff recorded when the last run ended (what a scorer checks after the workspace is gone). */
  lastDiff: RepoDiff | undefined;

  constructor(private readonly options: RepoEnvOptions) {
    if (!options || typeof options.repo !== 'string' || !options.repo)
      throw new Error('RepoEnv needs a repository: new RepoEnv({ repo: "./my-repo" })');
    const repo = path.resolve(options.repo);
    if (!existsSync(repo) || !statSync(repo).isDirectory())
      throw new Error(`RepoEnv repository ${repo} is not a folder`);
    this.repo = repo;
    this.name = options.name ?? 'repo';
    // Getters, so the ops read the env's workspace and base commit as they are when called (set by setup()).
    const env = () => this;
    this.repoOps = {
      get root() {
        return env().root;
      },
      get baseCommit() {
        return env().baseCommit;
      },
      diff: (o) => this.diff(o),
      reset: () => this.reset(),
    };
  }

  /** The workspace folder (while a run is set up). */
  get root(): string {
    if (!this.host) throw new EnvError(`RepoEnv ${this.name} has no workspace: it is made by setup()`);
    return this.host.root;
  }

  /** The commit the workspace was checked out from. */
  get baseCommit(): string {
    if (!this.commit) throw new EnvError(`RepoEnv ${this.name} has no base commit: it is chosen by setup()`);
    return this.commit;
  }

  /** Checks out the task's base commit into the workspace (made on first use, reset after). */
  async setup(task: Task): Promise<void> {
    if (this.busy)
      throw new EnvError(`RepoEnv ${this.name} is already in use by a run; give each concurrent run its own RepoEnv`);
    this.busy = true;
    try {
      const wanted = (typeof this.options.ref === 'function' ? this.options.ref(task) : this.options.ref) ?? 'HEAD';
      if (typeof wanted !== 'string' || !wanted || wanted.startsWith('-') || /[\s\0]/.test(wanted))
        throw new EnvError(`RepoEnv ref ${JSON.stringify(wanted)} is not a ref, tag or commit id`);
      if (!this.tmp) await this.materialize();
      this.commit = (
        await this.git(
          ['rev-parse', '--verify', '--quiet', '--end-of-options', `${wanted}^{commit}`],
          `${JSON.stringify(wanted)} is not a commit of ${this.repo}`,
        )
      ).trim();
      await this.reset();
      this.lastDiff = undefined;
    } catch (err) {
      this.busy = false;
      throw err;
    }
  }

  ops<G extends keyof OpGroups>(group: G): OpGroups[G] | undefined;
  ops(group: string): unknown;
  ops(group: string): FileOps | ProcessOps | RepoOps | undefined {
    if (!this.host) return undefined;
    if (group === 'file') return this.host.files;
    if (group === 'process') return this.host.processes;
    if (group === 'repo') return this.repoOps;
    return undefined;
  }

  /** Puts the workspace back to the base commit: tracked files restored, everything else (ignored files too) removed. */
  async reset(): Promise<void> {
    const commit = this.baseCommit;
    await this.git(['reset', '--hard', '--quiet', commit], 'cannot check out the base commit');
    await this.git(['clean', '-ffdxq'], 'cannot remove untracked files');
    // git never touches a top-level `.git`, so one the agent made is removed here.
    rmSync(path.join(this.root, '.git'), { recursive: true, force: true });
  }

  /** The agent's changes against the base commit: new, changed, deleted and renamed files (ignored files excepted). */
  async diff(options: { signal?: AbortSignal } = {}): Promise<RepoDiff> {
    const commit = this.baseCommit;
    await this.git(['add', '--all'], 'cannot read the changes', options.signal);
    const maxBytes = this.options.maxDiffBytes ?? 10 * 1024 * 1024;
    const patch = await this.gitRaw(
      ['diff', '--cached', '--binary', '--no-color', '--no-ext-diff', '--no-textconv', commit, '--'],
      maxBytes,
      options.signal,
    );
    const names = await this.git(
      ['diff', '--cached', '--name-status', '-z', '--no-ext-diff', commit, '--'],
      'cannot list the changes',
      options.signal,
    );
    return { baseCommit: commit, patch: patch.text, files: parseNameStatus(names), truncated: patch.truncated };
  }

  /** `repo.diff`: the patch of the run's changes (kept in `lastDiff` for scorers). Nothing when there is no workspace. */
  async artifacts(): Promise<EnvArtifact[]> {
    if (!this.host || !this.commit) return [];
    const d = await this.diff();
    this.lastDiff = d;
    return [
      {
        name: 'repo.diff',
        content: d.truncated
          ? `${d.patch}\n[the diff was cut at ${this.options.maxDiffBytes ?? 10 * 1024 * 1024} bytes]\n`
          : d.patch,
      },
    ];
  }

  /** Stops the workspace's commands and removes the temporary folder (unless `keep`). */
  close(): void {
    this.busy = false;
    this.host?.close();
    if (!this.options.keep) this.dispose();
  }

  /** Removes the temporary folder now (for `keep: true`, once the scorer is done). */
  dispose(): void {
    this.host?.close();
    if (this.tmp) rmSync(this.tmp, { recursive: true, force: true });
    this.tmp = this.host = this.commit = undefined;
  }

  private async materialize(): Promise<void> {
    const parent = path.resolve(this.options.tmpDir ?? tmpdir());
    mkdirSync(parent, { recursive: true });
    const tmp = realpathSync(mkdtempSync(path.join(parent, 'qitos-repo-')));
    this.tmp = tmp;
    try {
      // The one transport allowed: reading the local source repository.
      const clone = await this.run(
        [
          '-c',
          'protocol.file.allow=always',
          'clone',
          '--quiet',
          '--bare',
          '--shared',
          '--',
          this.repo,
          path.join(tmp, 'git'),
        ],
        undefined,
        false,
      );
      if (clone.exitCode !== 0)
        throw new EnvError(
          `RepoEnv cannot read the ` +
            `repository ${this.repo}: ${clone.stderr.toString('utf8').trim() || `git clone exited ${clone.exitCode}`}`,
        );
      mkdirSync(path.join(tmp, 'work'));
      this.host = new HostEnv({ ...this.options.host, root: path.join(tmp, 'work'), name: this.name });
    } catch (err) {
      this.dispose();
      throw err;
    }
  }

  /** Runs git on the private clone and the workspace; returns stdout, or throws EnvError with `what` and git's message. */
  private async git(args: string[], what: string, signal?: AbortSignal): Promise<string> {
    const r = await this.run(args, signal);
    if (r.exitCode !== 0 || r.timedOut || r.truncated) {
      const why = r.timedOut
        ? `timed out after ${this.options.gitTimeoutMs ?? 120_000} ms`
        : r.truncated
          ? 'printed too much'
          : r.stderr.toString('utf8').trim() || `exit code ${r.exitCode}`;
      throw new EnvError(`RepoEnv: ${what}: ${why}`);
    }
    return r.stdout.toString('utf8');
  }

  private async gitRaw(
    args: string[],
    maxBytes: number,
    signal?: AbortSignal,
  ): Promise<{ text: string; truncated: boolean }> {
    const r = await this.run(args, signal, true, maxBytes);
    if (r.truncated) return { text: r.stdout.toString('utf8'), truncated: true };
    if (r.exitCode !== 0 || r.timedOut)
      throw new EnvError(
        `RepoEnv: cannot compute the diff: ${r.timedOut ? 'timed out' : r.stderr.toString('utf8').trim()}`,
      );
    return { text: r.stdout.toString('utf8'), truncated: false };
  }

  private async run(args: string[], signal?: AbortSignal, withTree = true, maxOutputBytes?: number) {
    const tmp = this.tmp!;
    const where = withTree ? ['--git-dir', path.join(tmp, 'git'), '--work-tree', path.join(tmp, 'work')] : [];
    try {
      return await runProcessBytes(this.options.git ?? 'git', [...GIT_SAFETY, ...where, ...args], {
        // Nothing of the host's git settings (GIT_DIR, GIT_INDEX_FILE, ~/.gitconfig) reaches these commands.
        env: plumbingEnv(tmp, {
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_CONFIG_GLOBAL: '/dev/null',
          GIT_TERMINAL_PROMPT: '0',
          GIT_ATTR_NOSYSTEM: '1',
        }),
        ...(withTree ? { cwd: path.join(tmp, 'work') } : {}),
        timeoutMs: this.options.gitTimeoutMs ?? 120_000,
        maxOutputBytes: maxOutputBytes ?? PLUMBING_OUTPUT_CAP,
        signal,
      });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT')
        throw new EnvError(`RepoEnv needs git: "${this.options.git ?? 'git'}" was not found on PATH`);
      throw err;
    }
  }
}

/** Parses `git diff --name-status -z` output. */
function parseNameStatus(out: string): RepoFileChange[] {
  const parts = out.split('\0').filter((p) => p !== '');
  const files: RepoFileChange[] = [];
  for (let i = 0; i < parts.length;) {
    const code = parts[i++];
    const status = STATUS[code[0]];
    if (!status)
      throw new EnvError(`RepoEnv: git reported a change status "${code}" that a diff against a commit does not have`);
    if (code[0] === 'R' || code[0] === 'C') {
      files.push({ path: parts[i + 1], status, from: parts[i] });
      i += 2;
    } else {
      files.push({ path: parts[i++], status });
    }
  }
  return files;
}
