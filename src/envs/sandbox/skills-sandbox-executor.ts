import { readdir, realpath, stat } from 'node:fs/promises';
import { dirname, extname, join, relative, resolve } from 'node:path';
import type { ProcessResult } from '../../core/index.js';
import { isInside } from '../path-jail.js';
import { bwrapArgv, limitArgv, type SandboxLimits } from './bwrap-argv.js';
import { checkedLimits } from './sandbox.js';
import { findBwrap } from './bwrap-probe.js';
import { hasPrlimit } from './prlimit-probe.js';
import { runProcess } from './run-process.js';

/** Options of a SkillsSandboxExecutor. Every field has a default. */
export interface SkillsSandboxOptions {
  /** Time limit of one script in ms (default 60 s). */
  timeoutMs?: number;
  /** Cap on a script's stdout + stderr in bytes (default 10 MiB). */
  maxOutputBytes?: number;
  /**
   * The bubblewrap binary, or `false` to never use one (then only Node scripts run, under Node's permission
   * model alone, and results say the network is not isolated). Default: a working `bwrap` found on PATH.
   */
  bwrap?: string | false;
  /** Interpreters (defaults: this Node binary, `/usr/bin/python3`, `/bin/sh`). */
  node?: string;
  python?: string;
  shell?: string;
  /** More folders the sandbox may read (e.g. the prefix of an interpreter installed outside /usr). */
  readOnly?: string[];
  /**
   * Kernel limits on each script, the bash tool's (`DEFAULT_LIMITS`: 512 processes, 1 GiB per file, 600 s of CPU
   * and 2 GiB of memory per process), applied with `prlimit`; give any of them to change it.
   */
  limits?: Partial<SandboxLimits>;
  /**
   * Run scripts as this user and group. The kernel does not apply the process limit to root, so a qitos running
   * as root should name an unprivileged user (e.g. nobody, 65534) who can read the skill and write the workspace.
   */
  user?: { uid: number; gid: number };
}

/** How a script was isolated, and what isolation it lacked. */
export interface SandboxInfo {
  /**
   * `bwrap` (own namespaces, no network, only the skill folder and workspace mounted), `limits` (kernel limits on
   * processes, file size, CPU time and memory), plus Node's permission model for Node scripts.
   */
  layers: Array<'bwrap' | 'limits' | 'node-permission'>;
  /** Isolation that was not there, in words (empty when the full sandbox ran). */
  missing: string[];
}

/** The outcome of one script run. */
export interface SkillScriptResult {
  /** Exit code 0, not timed out, output not cut. */
  ok: boolean;
  /** stdout parsed as JSON when it is JSON, else the text. */
  output: unknown;
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
  truncated: boolean;
  durationMs: number;
  sandbox: SandboxInfo;
  /** Why it failed, in one paragraph for the model or a user (absent when ok). */
  error?: string;
}

/** Script kinds by extension, and how each is started. */
const KINDS: Record<string, 'node' | 'python' | 'shell'> = {
  '.mjs': 'node',
  '.js': 'node',
  '.cjs': 'node',
  '.py': 'python',
  '.sh': 'shell',
};
/** The script run when none is named (`scripts/execute.js` or another `execute.*`), by extension preference. */
const DEFAULT_SCRIPTS = ['execute.mjs', 'execute.js', 'execute.cjs', 'execute.py', 'execute.sh'];

/**
 * Runs a skill's scripts (`scripts/*.mjs|js|cjs|py|sh`) in a child process, isolated:
 * - inside bubblewrap (see `bwrapArgv`): only the system folders, the skill folder (read-only) and the workspace
 *   (read-write) are mounted; own PID/IPC/UTS/user namespaces; no network; cleared environment (PATH, HOME = the
 *   workspace, LANG); cwd the workspace;
 * - Node scripts additionally under Node's permission model: reads only in the skill folder and the workspace,
 *   writes only in the workspace, no child processes, no worker threads, no native addons;
 * - kernel limits per process (`limits`: processes, file size, CPU time, memory) when `prlimit` is here;
 * - 60 s timeout and a 10 MiB output cap, after which the whole process group is killed;
 * - the arguments go in as JSON on stdin; stdout comes back as JSON when it parses, else as text.
 * Without bubblewrap, Python and shell scripts are refused (there is no sandbox to run them in), and Node scripts
 * run under the permission model alone with `sandbox.missing` saying the network is not isolated.
 */
export class SkillsSandboxExecutor {
  private readonly timeoutMs: number;
  private readonly maxOutputBytes: number;
  private readonly limits: SandboxLimits;
  private bwrap: string | false | undefined;
  private prlimit: boolean | undefined;

  constructor(private readonly options: SkillsSandboxOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.maxOutputBytes = options.maxOutputBytes ?? 10 * 1024 * 1024;
    this.limits = checkedLimits(options.limits);
    this.bwrap = options.bwrap;
  }

  /** The bwrap binary in use, or false when there is none (looked up once, on first use). */
  bwrapBinary(): string | false {
    return (this.bwrap ??= findBwrap() ?? false);
  }

  /** The runnable scripts of a skill folder (paths relative to it, sorted). */
  async scripts(skillDir: string): Promise<string[]> {
    const entries = await readdir(join(skillDir, 'scripts'), { withFileTypes: true }).catch(() => []);
    return entries
      .filter((e) => e.isFile() && KINDS[extname(e.name)])
      .map((e) => `scripts/${e.name}`)
      .sort();
  }

  /**
   * Runs `script` (a path relative to the skill folder, inside its `scripts/`; default `scripts/execute.*`) of the
   * skill in `skillDir`, with `args` as JSON on stdin and `workspace` as its writable working folder. A script
   * that fails, times out or is refused by the sandbox is a result with `ok: false` and an `error`; a request that
   * cannot be run at all (no such script, no sandbox for its kind) throws an error saying why.
   */
  async run(request: {
    skillDir: string;
    script?: string;
    args?: unknown;
    workspace: string;
    signal?: AbortSignal;
  }): Promise<SkillScriptResult> {
    const skillDir = await realpath(request.skillDir);
    const script = await this.resolveScript(skillDir, request.script);
    const workspace = await realpath(request.workspace).catch(() => {
      throw new Error(`workspace ${request.workspace} does not exist`);
    });
    if (!(await stat(workspace)).isDirectory()) throw new Error(`workspace ${workspace} is not a folder`);
    const kind = KINDS[extname(script)];
    const bwrap = this.bwrapBinary();
    if (!bwrap && kind !== 'node') {
      throw new Error(
        `cannot run ${relative(skillDir, script)}: ${kind === 'python' ? 'Python' : 'shell'} ` +
          `skill scripts run only inside the bubblewrap sandbox, and no working bwrap was found ` +
          `(install the Debian/Ubuntu package "bubblewrap")`,
      );
    }
    const interpreter = await this.interpreter(kind);
    const limited = (this.prlimit ??= hasPrlimit());
    // Outside a user namespace RLIMIT_NPROC counts all of the user's processes, so the process limit needs bwrap.
    const limits = limited ? ['prlimit', ...limitArgv(this.limits, Boolean(bwrap))] : [];
    const command = [...limits, ...interpreter.argv, ...this.interpreterFlags(kind, skillDir, workspace), script];
    const env = { PATH: '/usr/bin:/bin', HOME: workspace, LANG: 'C.UTF-8' };
    const argv = bwrap
      ? [
          bwrap,
          ...bwrapArgv({
            readOnly: [skillDir, ...interpreter.binds, ...(this.options.readOnly ?? [])],
            writable: [workspace],
            cwd: workspace,
            env,
          }),
          '--',
          ...command,
        ]
      : command;
    const sandbox: SandboxInfo = {
      layers: [
        ...(bwrap ? (['bwrap'] as const) : []),
        ...(limited ? (['limits'] as const) : []),
        ...(kind === 'node' ? (['node-permission'] as const) : []),
      ],
      missing: [
        ...(bwrap
          ? []
          : [
              'network isolation: bubblewrap is not available, so the script can open network connections',
              'process namespaces (PID, IPC): bubblewrap is not available',
            ]),
        ...(limited
          ? []
          : ['resource limits (memory, file size, processes, CPU time): prlimit (util-linux) is not available']),
      ],
    };
    const stdin = JSON.stringify(request.args ?? {});
    const user = this.options.user ? { uid: this.options.user.uid, gid: this.options.user.gid } : {};
    const r = await runProcess(argv[0]!, argv.slice(1), {
      cwd: workspace,
      env,
      stdin,
      timeoutMs: this.timeoutMs,
      maxOutputBytes: this.maxOutputBytes,
      signal: request.signal,
      label: relative(skillDir, script),
      ...user,
    });
    return result(
      r,
      sandbox,
      relative(skillDir, script),
      this.timeoutMs,
      this.maxOutputBytes,
      limited ? this.limits : undefined,
    );
  }

  /** The script's real path, checked: inside the skill's `scripts/` folder (links included), a known kind. */
  private async resolveScript(skillDir: string, script: string | undefined): Promise<string> {
    if (script === undefined) {
      const available = await this.scripts(skillDir);
      const found = DEFAULT_SCRIPTS.map((f) => `scripts/${f}`).find((f) => available.includes(f));
      if (!found)
        throw new Error(
          `this skill has no scripts/execute.* to run by default; name one of its scripts: ${available.join(', ') || '(none)'}`,
        );
      script = found;
    }
    // A bare file name ("stats.mjs") is one of scripts/: what a model writes after reading the skill's listing.
    if (!/[\\/]/.test(script)) script = `scripts/${script}`;
    const scriptsDir = join(skillDir, 'scripts');
    const wanted = resolve(skillDir, script);
    if (!isInside(scriptsDir, wanted) || wanted === scriptsDir)
      throw new Error(`"${script}" is not in the skill's scripts/ folder; only scripts there can be run`);
    const real = await realpath(wanted).catch(async () => {
      throw new Error(
        `the skill has no script "${script}"; its scripts: ${(await this.scripts(skillDir)).join(', ') || '(none)'}`,
      );
    });
    if (!isInside(scriptsDir, real)) throw new Error(`"${script}" links outside the skill's scripts/ folder`);
    if (!(await stat(real)).isFile()) throw new Error(`"${script}" is not a file`);
    if (!KINDS[extname(real)]) throw new Error(`"${script}" is not a runnable script: use .mjs, .js, .cjs, .py or .sh`);
    return real;
  }

  /** The interpreter's argv and the folders it needs mounted (its own folder when it lives outside /usr). */
  private async interpreter(kind: 'node' | 'python' | 'shell'): Promise<{ argv: string[]; binds: string[] }> {
    const bin =
      kind === 'node'
        ? (this.options.node ?? process.execPath)
        : kind === 'python'
          ? (this.options.python ?? '/usr/bin/python3')
          : (this.options.shell ?? '/bin/sh');
    const real = await realpath(bin).catch(() => {
      throw new Error(`the ${kind} interpreter ${bin} was not found`);
    });
    const inSystem = ['/usr/', '/bin/', '/lib/', '/sbin/'].some((p) => real.startsWith(p));
    return { argv: [real], binds: inSystem ? [] : [dirname(real)] };
  }

  private interpreterFlags(kind: 'node' | 'python' | 'shell', skillDir: string, workspace: string): string[] {
    if (kind === 'python') return ['-I', '-B']; // isolated mode (no user site, no PYTHON* variables), no .pyc writes
    if (kind === 'shell') return [];
    // Node 20 and 21 call the permission model experimental; 22 on accept --permission.
    const flag = Number(process.versions.node.split('.')[0]) >= 22 ? '--permission' : '--experimental-permission';
    return [
      flag,
      `--allow-fs-read=${skillDir}`,
      `--allow-fs-read=${workspace}`,
      `--allow-fs-write=${workspace}`,
      '--no-warnings',
    ];
  }
}

/** Turns a process result into a script result with an explanation of any failure. */
function result(
  r: ProcessResult,
  sandbox: SandboxInfo,
  script: string,
  timeoutMs: number,
  cap: number,
  limits?: SandboxLimits,
): SkillScriptResult {
  const stdout = r.stdout;
  const trimmed = stdout.trim();
  let output: unknown = stdout;
  if (trimmed) {
    try {
      output = JSON.parse(trimmed);
    } catch {
      output = stdout; // not JSON: the text is the output
    }
  }
  const ok = r.exitCode === 0 && !r.timedOut && !r.truncated;
  const base = {
    output,
    stdout,
    stderr: r.stderr,
    exitCode: r.exitCode,
    timedOut: r.timedOut,
    truncated: r.truncated,
    durationMs: Math.round(r.durationMs),
    sandbox,
  };
  if (ok) return { ok, ...base };
  const why = r.timedOut
    ? `was stopped after ${timeoutMs / 1000} s (time limit)`
    : r.truncated
      ? `was stopped: it printed more than ${cap} bytes (output limit)`
      : `failed (exit code ${r.exitCode ?? `signal ${r.signal}`})`;
  const hint = (limits && limitHint(r, limits)) ?? sandboxHint(r.stderr);
  const tail = r.stderr.trim().split('\n').slice(-12).join('\n');
  return { ok, ...base, error: `script ${script} ${why}.${hint ? ` ${hint}` : ''}${tail ? `\nstderr:\n${tail}` : ''}` };
}

/** Which kernel limit stopped the script, read from its signal and error output. */
function limitHint(r: ProcessResult, limits: SandboxLimits): string | undefined {
  const mib = (n: number) => `${Math.round(n / 1024 ** 2)} MiB`;
  if (r.signal === 'SIGXFSZ' || /File too large|EFBIG/.test(r.stderr))
    return `It passed the file size limit (${mib(limits.fileSizeBytes)} per file).`;
  if (r.signal === 'SIGXCPU') return `It passed the CPU time limit (${limits.cpuSeconds} s per process).`;
  if (
    /MemoryError|Cannot allocate memory|ENOMEM|Array buffer allocation failed|Failed to allocate memory|ERR_MEMORY_ALLOCATION_FAILED|heap out of memory|Out of memory/.test(
      r.stderr,
    )
  )
    return `It passed the memory limit (${mib(limits.memoryBytes)} per process).`;
  if (/Resource temporarily unavailable|EAGAIN|fork: retry/.test(r.stderr))
    return `It passed the process limit (${limits.processes} processes).`;
  return undefined;
}

/** What the sandbox refused, read from the script's error output. */
export function sandboxHint(stderr: string): string | undefined {
  const denied = /permission: '(\w+)'(?:,\s*resource: '([^']*)')?/.exec(stderr);
  if (denied || /ERR_ACCESS_DENIED/.test(stderr)) {
    const what = denied?.[1];
    const detail: Record<string, string> = {
      FileSystemRead: 'reading outside the skill folder and the workspace',
      FileSystemWrite: 'writing outside the workspace',
      ChildProcess: 'starting another process',
      WorkerThreads: 'starting a worker thread',
      Addon: 'loading a native addon',
    };
    return `The sandbox refused ${what ? (detail[what] ?? what) : 'an operation'}${denied?.[2] ? ` (${denied[2]})` : ''}.`;
  }
  if (
    /ENETUNREACH|ECONNREFUSED|EAI_AGAIN|Network is unreachable|Temporary failure in name resolution|Name or service not known/.test(
      stderr,
    )
  )
    return 'The sandbox has no network.';
  if (/EROFS|Read-only file system/.test(stderr)) return 'Only the workspace is writable in the sandbox.';
  if (/ENOENT|No such file or directory/.test(stderr))
    return 'The sandbox shows only the system folders, the skill folder and the workspace.';
  return undefined;
}
