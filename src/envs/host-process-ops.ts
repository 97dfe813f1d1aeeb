import type { ChildProcess } from 'node:child_process';
import { stat } from 'node:fs/promises';
import type { ProcessOps, ProcessResult, ShellCommand } from '../core/index.js';
import { EnvError } from '../core/index.js';
import type { PathJail } from './path-jail.js';
import { killGroup, runProcess } from './sandbox/run-process.js';
import type { Sandbox } from './sandbox/sandbox.js';
import { shellCommands } from './shell/shell-command-reader.js';

/** Settings of host process ops (see HostEnvOptions for the defaults). */
export interface HostProcessSettings {
  shell: string;
  allowEnv: readonly string[];
  timeoutMs: number;
  maxOutputBytes: number;
  sandbox: Sandbox;
}

const FALLBACK_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Options of one command run (see {@link ProcessOps.run}). */
type RunOptions = NonNullable<Parameters<ProcessOps['run']>[1]>;

/**
 * Runs commands with `<shell> -c` inside the workspace. Each run:
 * - starts in a folder inside the jail (default the root);
 * - runs in the env's {@link Sandbox}: with bubblewrap, in its own namespaces where the workspace is the only
 *   writable folder, with its own /proc and PID space, no network unless allowed, and kernel limits on
 *   processes, file size and CPU time; without it, as a plain process under the file-size and CPU limits;
 * - sees only an allow-listed environment: PATH, HOME (= the workspace root), LANG, the `allowEnv` names
 *   copied from the host, and what the caller passes in `env`;
 * - is the leader of its own process group, killed with the whole group when it outlives its timeout, prints
 *   more than the output cap, or the caller's signal aborts (see {@link runProcess}).
 */
export class HostProcessOps implements ProcessOps {
  private readonly running = new Set<ChildProcess>();
  /** The commands a line runs, as bash reads it (see {@link shellCommands}). */
  readonly commands: (line: string) => Promise<readonly ShellCommand[]> = shellCommands();

  constructor(
    private readonly jail: PathJail,
    private readonly settings: HostProcessSettings,
  ) {}

  /** The environment a command sees (without per-call additions). */
  baseEnv(): Record<string, string> {
    const host = process.env;
    const env: Record<string, string> = {
      PATH: host.PATH || FALLBACK_PATH,
      HOME: this.jail.root,
      LANG: host.LANG || 'C.UTF-8',
    };
    for (const name of this.settings.allowEnv) {
      const v = host[name];
      if (v !== undefined) env[name] = v;
    }
    return env;
  }

  async run(command: string, options: RunOptions = {}): Promise<ProcessResult> {
    if (typeof command !== 'string' || !command.trim())
      throw new EnvError('command is empty: give a shell command to run');
    if (command.includes('\0')) throw new EnvError('command contains a NUL byte');
    const cwd = await this.workingFolder(options.cwd);
    const sandboxed = this.settings.sandbox.command([this.settings.shell, '-c', command], {
      cwd,
      writable: [this.jail.root],
    });
    return runProcess(sandboxed.file, sandboxed.args, {
      cwd,
      env: { ...this.baseEnv(), ...options.env },
      timeoutMs: positive(options.timeoutMs, 'timeoutMs') ?? this.settings.timeoutMs,
      maxOutputBytes: positive(options.maxOutputBytes, 'maxOutputBytes') ?? this.settings.maxOutputBytes,
      signal: options.signal,
      stdin: options.stdin,
      running: this.running,
      label: command,
    });
  }

  /** Kills every command still running, each with its process group (used by `HostEnv.close` and on a second signal). */
  killAll(): void {
    for (const child of this.running) if (child.exitCode === null && child.signalCode === null) killGroup(child);
    this.running.clear();
  }

  /** The folder a command starts in: inside the jail, and an existing folder. */
  private async workingFolder(p: string | undefined): Promise<string> {
    const cwd = await this.jail.resolve(p ?? '.');
    const st = await stat(cwd).catch(() => undefined);
    if (!st?.isDirectory())
      throw new EnvError(`cannot run in "${this.jail.show(cwd)}": it is not an existing folder in the workspace`);
    return cwd;
  }
}

function positive(v: number | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (!Number.isFinite(v) || v <= 0) throw new EnvError(`${name} must be a positive number, got ${v}`);
  return v;
}
