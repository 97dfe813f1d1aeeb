import { spawn, type ChildProcess } from 'node:child_process';
import { stat } from 'node:fs/promises';
import type { ProcessOps, ProcessResult } from '../core/index.js';
import { AbortedError, EnvError } from '../core/index.js';
import type { PathJail } from './path-jail.js';

/** Settings of host process ops (see HostEnvOptions for the defaults). */
export interface HostProcessSettings {
  shell: string;
  allowEnv: readonly string[];
  timeoutMs: number;
  maxOutputBytes: number;
}

const FALLBACK_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** After the shell exits, how long output may still arrive (restarted by each chunk) before the run ends. */
const DRAIN_MS = 200;
/** Added to stderr when the shell exited but a background process it started still held its output. */
export const LINGER_NOTE =
  '[the command exited, but a background process it started still held its output, so it was stopped with the command. ' +
  'To keep a background process running, send its output to a file: cmd > out.log 2>&1 &]';

/**
 * Runs commands with `<shell> -c` inside the workspace. Each run:
 * - starts in a folder inside the jail (default the root) as the leader of its own process group;
 * - sees only an allow-listed environment: PATH, HOME (= the workspace root), LANG, the `allowEnv` names
 *   copied from the host, and what the caller passes in `env`;
 * - is killed, with its whole process group, when it outlives its timeout, prints more than the output
 *   cap (the output kept is cut at the cap and marked `truncated`), or the caller's signal aborts;
 * - ends when its shell exits: output still in flight is read for up to 200 ms more; a background process
 *   that still holds the output pipes then (`server &`) is stopped with its group and `LINGER_NOTE` is added
 *   to stderr, instead of the run waiting for it until the timeout. A background process whose output goes
 *   elsewhere (`server > log 2>&1 &`) does not hold the pipes and keeps running.
 */
export class HostProcessOps implements ProcessOps {
  private readonly running = new Set<ChildProcess>();

  constructor(
    private readonly jail: PathJail,
    private readonly settings: HostProcessSettings,
  ) {}

  /** The environment a command sees (without per-call additions). */
  baseEnv(): Record<string, string> {
    const host = process.env;
    const env: Record<string, string> = { PATH: host.PATH || FALLBACK_PATH, HOME: this.jail.root, LANG: host.LANG || 'C.UTF-8' };
    for (const name of this.settings.allowEnv) {
      const v = host[name];
      if (v !== undefined) env[name] = v;
    }
    return env;
  }

  async run(command: string, options: { cwd?: string; timeoutMs?: number; maxOutputBytes?: number; env?: Record<string, string>; signal?: AbortSignal; stdin?: string } = {}): Promise<ProcessResult> {
    if (typeof command !== 'string' || !command.trim()) throw new EnvError('command is empty: give a shell command to run');
    if (command.includes('\0')) throw new EnvError('command contains a NUL byte');
    const cwd = await this.jail.resolve(options.cwd ?? '.');
    const st = await stat(cwd).catch(() => undefined);
    if (!st?.isDirectory()) throw new EnvError(`cannot run in "${this.jail.show(cwd)}": it is not an existing folder in the workspace`);
    const timeoutMs = positive(options.timeoutMs, 'timeoutMs') ?? this.settings.timeoutMs;
    const cap = positive(options.maxOutputBytes, 'maxOutputBytes') ?? this.settings.maxOutputBytes;
    options.signal?.throwIfAborted();

    const started = performance.now();
    const child = spawn(this.settings.shell, ['-c', command], {
      cwd,
      env: { ...this.baseEnv(), ...options.env },
      detached: true, // its own process group, so a kill reaches the command's children too
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.running.add(child);

    return new Promise<ProcessResult>((resolve, reject) => {
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let bytes = 0;
      let truncated = false;
      let timedOut = false;
      let aborted = false;
      let killed = false;
      let done = false;
      let lingered = false;
      let drain: NodeJS.Timeout | undefined;
      let exited: { code: number | null; sig: NodeJS.Signals | null } | undefined;
      const armDrain = () => {
        clearTimeout(drain);
        drain = setTimeout(() => {
          lingered = true;
          kill();
          finish(exited!.code, exited!.sig);
        }, DRAIN_MS);
      };

      const kill = () => {
        if (killed) return;
        killed = true;
        killGroup(child);
        // A grandchild that left the group may still hold the pipes open: stop reading them.
        child.stdout?.destroy();
        child.stderr?.destroy();
      };
      const collect = (into: Buffer[]) => (chunk: Buffer) => {
        if (truncated) return;
        if (exited && !killed) armDrain();
        const room = cap - bytes;
        if (chunk.length > room) {
          if (room > 0) into.push(chunk.subarray(0, room));
          bytes = cap;
          truncated = true;
          kill();
          return;
        }
        into.push(chunk);
        bytes += chunk.length;
      };
      child.stdout!.on('data', collect(out));
      child.stderr!.on('data', collect(err));

      const timer = setTimeout(() => {
        timedOut = true;
        kill();
      }, timeoutMs);
      const onAbort = () => {
        aborted = true;
        kill();
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });

      const finish = (exitCode: number | null, signal: NodeJS.Signals | null, error?: Error) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        clearTimeout(drain);
        options.signal?.removeEventListener('abort', onAbort);
        this.running.delete(child);
        if (error) return reject(error);
        if (aborted) return reject(new AbortedError(`command aborted after ${Math.round(performance.now() - started)} ms: ${command.slice(0, 200)}`));
        resolve({
          exitCode,
          signal,
          stdout: Buffer.concat(out).toString('utf8'),
          stderr: lingered ? withNote(Buffer.concat(err).toString('utf8'), LINGER_NOTE) : Buffer.concat(err).toString('utf8'),
          timedOut,
          truncated,
          durationMs: performance.now() - started,
        });
      };
      child.on('error', (e: NodeJS.ErrnoException) => {
        kill();
        finish(null, null, new EnvError(e.code === 'ENOENT' ? `cannot run commands: shell "${this.settings.shell}" was not found on PATH` : `cannot run command: ${e.message}`, { cause: e }));
      });
      // After a kill, 'exit' is enough (pipes may be held by stray grandchildren); otherwise wait for 'close'
      // so no output is lost, but not for a background process that holds the pipes open (see armDrain).
      child.on('exit', (code, sig) => {
        if (killed) return finish(code, sig);
        exited = { code, sig };
        armDrain();
      });
      child.on('close', (code, sig) => finish(code, sig));
      child.stdin!.on('error', (e: NodeJS.ErrnoException) => {
        // EPIPE: the command exited without reading its input; that is its business, not an error of the run.
        if (e.code !== 'EPIPE') finish(null, null, new EnvError(`cannot write the command's stdin: ${e.message}`, { cause: e }));
      });
      child.stdin!.end(options.stdin ?? '');
    });
  }

  /** Kills every command still running (used by `HostEnv.close`). */
  killAll(): void {
    for (const child of this.running) if (child.exitCode === null && child.signalCode === null) killGroup(child);
    this.running.clear();
  }
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch (err) {
    // ESRCH: the group is already gone, which is what we wanted. Anything else: kill at least the shell.
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') child.kill('SIGKILL');
  }
}

function withNote(text: string, note: string): string {
  return `${text}${text && !text.endsWith('\n') ? '\n' : ''}${note}\n`;
}

function positive(v: number | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (!Number.isFinite(v) || v <= 0) throw new EnvError(`${name} must be a positive number, got ${v}`);
  return v;
}
