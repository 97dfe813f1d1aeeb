import path from 'node:path';
import type { ProcessOps, ProcessResult, ShellCommand } from '../core/index.js';
import { AbortedError, EnvError, newId } from '../core/index.js';
import type { DockerTarget } from './docker-file-ops.js';
import { resolveLexical } from './path-jail.js';
import { shellCommands } from './shell/shell-command-reader.js';

const posix = path.posix;
const NO_CWD = '__qitos_no_such_folder__';
// Records its pid (the exec'd process leads its own process group in a container), enters the folder, runs the
// command with `sh -c` and removes the pid file. $1 = exec id, $2 = folder, $3 = command.
const RUN =
  'p="${TMPDIR:-/tmp}/.qitos-exec-$1.pid"; echo $$ > "$p" 2>/dev/null; ' +
  `cd "$2" 2>/dev/null || { echo ${NO_CWD} >&2; rm -f "$p"; exit 120; }; ` +
  'sh -c "$3"; s=$?; rm -f "$p"; exit $s';
// Kills what RUN started: its process group, else the process. $1 = exec id.
const KILL =
  'p="${TMPDIR:-/tmp}/.qitos-exec-$1.pid"; [ -f "$p" ] || exit 0; k=$(cat "$p"); rm -f ' +
  '"$p"; kill -s KILL -- "-$k" 2>/dev/null || kill -s KILL "$k" 2>/dev/null; exit 0';

/** Settings of docker process ops (see DockerEnvOptions). */
export interface DockerProcessSettings {
  timeoutMs: number;
  maxOutputBytes: number;
  /** Variables every command sees, besides the image's own environment. */
  env: Record<string, string>;
}

/**
 * Runs commands in the container with `docker exec ... sh -c`, in a folder of the workspace. The host's environment
 * never reaches a command (only the image's, the env's `env` and the call's `env`). A command that outlives its
 * timeout, floods its output or is aborted is killed inside the container too (its process group), not only the
 * local docker client.
 */
export class DockerProcessOps implements ProcessOps {
  /** The commands a line runs, read with bash's grammar (a superset of the container's `sh`; see {@link shellCommands}). */
  readonly commands: (line: string) => Promise<readonly ShellCommand[]> = shellCommands();
  private readonly running = new Set<string>();

  constructor(
    private readonly target: DockerTarget,
    private readonly settings: DockerProcessSettings,
  ) {}

  async run(
    command: string,
    options: {
      cwd?: string;
      timeoutMs?: number;
      maxOutputBytes?: number;
      env?: Record<string, string>;
      signal?: AbortSignal;
      stdin?: string;
    } = {},
  ): Promise<ProcessResult> {
    if (typeof command !== 'string' || !command.trim())
      throw new EnvError('command is empty: give a shell command to run');
    if (command.includes('\0')) throw new EnvError('command contains a NUL byte');
    const abs = resolveLexical(this.target.workdir, options.cwd ?? '.', posix);
    const rel = posix.relative(this.target.workdir, abs) || '.';
    const timeoutMs = options.timeoutMs ?? this.settings.timeoutMs;
    options.signal?.throwIfAborted();
    const id = newId('x').replace(/[^A-Za-z0-9_]/g, '');
    const vars = { ...this.settings.env, ...options.env };
    const badName = Object.keys(vars).find((k) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(k));
    if (badName !== undefined)
      throw new EnvError(
        `environment variable name ${JSON.stringify(badName)} is not valid: use letters, digits and _`,
      );
    const env = Object.entries(vars).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const args = [
      'exec',
      '-i',
      ...env,
      '-w',
      this.target.workdir,
      this.target.container(),
      'sh',
      '-c',
      RUN,
      'sh',
      id,
      rel === '.' ? '.' : `./${rel}`,
      command,
    ];
    this.running.add(id);
    try {
      const r = await this.target.cli.run(args, {
        timeoutMs,
        maxOutputBytes: options.maxOutputBytes ?? this.settings.maxOutputBytes,
        input: options.stdin ?? '',
        signal: options.signal,
      });
      const aborted = !!options.signal?.aborted;
      if (r.timedOut || r.truncated || aborted) await this.kill(id);
      if (aborted)
        throw new AbortedError(`command aborted after ${Math.round(r.durationMs)} ms: ${command.slice(0, 200)}`);
      const stderr = r.stderr.toString('utf8');
      if (r.exitCode === 120 && stderr.includes(NO_CWD))
        throw new EnvError(`cannot run in "${rel}": it is not an existing folder in the workspace`);
      return {
        exitCode: r.exitCode,
        signal: r.signal,
        stdout: r.stdout.toString('utf8'),
        stderr,
        timedOut: r.timedOut,
        truncated: r.truncated,
        durationMs: r.durationMs,
      };
    } finally {
      this.running.delete(id);
    }
  }

  /** Kills every command still running (DockerEnv.close, for a container the env did not start). */
  async killAll(): Promise<void> {
    await Promise.all([...this.running].map((id) => this.kill(id)));
    this.running.clear();
  }

  private async kill(id: string): Promise<void> {
    const r = await this.target.cli.run(['exec', this.target.container(), 'sh', '-c', KILL, 'sh', id], {
      timeoutMs: this.target.opTimeoutMs,
    });
    if (r.exitCode !== 0)
      throw new EnvError(
        `could not stop a command in container ${this.target.container()}: ${r.stderr.toString('utf8').trim() || `exit ${r.exitCode}`}`,
      );
  }
}
