import { spawn, type ChildProcess } from 'node:child_process';
import type { ProcessResult } from '../../core/index.js';
import { AbortedError, EnvError } from '../../core/index.js';

/** After the program exits, how long output may still arrive (restarted by each chunk) before the run ends. */
const DRAIN_MS = 200;
/** Added to stderr when the program exited but a background process it started still held its output. */
export const LINGER_NOTE =
  '[the command exited, but a background process it started still held its output, so it was stopped with the command. ' +
  'To keep a background process running, send its output to a file: cmd > out.log 2>&1 &]';

/** Options of {@link runProcess}. */
export interface RunProcessOptions {
  cwd: string;
  /** The whole environment the program sees (nothing is inherited). */
  env: Record<string, string>;
  /** Wall-clock limit, ms: past it the process group is killed and the result says `timedOut`. */
  timeoutMs: number;
  /** Cap on stdout + stderr together, bytes: past it the group is killed and the result says `truncated`. */
  maxOutputBytes: number;
  /** Aborting kills the group; the call rejects with AbortedError. */
  signal?: AbortSignal;
  /** Written to stdin, which is then closed (default: closed at once). */
  stdin?: string;
  /** The child is in this set while it runs (so an owner can kill everything still running). */
  running?: Set<ChildProcess>;
  /** Run as this user and group (Node's spawn `uid`/`gid`; needs the privilege to switch). */
  uid?: number;
  gid?: number;
  /** Names the command in the abort error (default: the program and its arguments). */
  label?: string;
}

/**
 * Runs a program as the leader of its own process group, with exactly the environment given, a wall-clock
 * timeout, an output cap and abort:
 * - the timeout, the cap and the abort kill the whole group (`SIGKILL` to `-pgid`), children included;
 * - the run ends when the program exits: output still in flight is read for up to 200 ms more; a
 *   background process that still holds the output pipes then (`server &`) is stopped with its group and
 *   {@link LINGER_NOTE} is added to stderr, instead of the run waiting for it until the timeout.
 * Used by HostEnv's process ops (through a {@link Sandbox} command line) and meant for any other caller that
 * runs untrusted programs, such as skill scripts.
 */
export function runProcess(file: string, args: readonly string[], options: RunProcessOptions): Promise<ProcessResult> {
  const { signal, running, timeoutMs, maxOutputBytes: cap } = options;
  signal?.throwIfAborted();
  const started = performance.now();
  const child = spawn(file, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true, // its own process group, so a kill reaches the command's children too
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(options.uid !== undefined ? { uid: options.uid } : {}),
    ...(options.gid !== undefined ? { gid: options.gid } : {}),
  });
  running?.add(child);

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

    const kill = () => {
      if (killed) return;
      killed = true;
      killGroup(child);
      // A grandchild that left the group may still hold the pipes open: stop reading them.
      child.stdout?.destroy();
      child.stderr?.destroy();
    };
    const armDrain = () => {
      clearTimeout(drain);
      drain = setTimeout(() => {
        lingered = true;
        kill();
        finish(exited!.code, exited!.sig);
      }, DRAIN_MS);
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
    signal?.addEventListener('abort', onAbort, { once: true });

    const finish = (exitCode: number | null, sig: NodeJS.Signals | null, error?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(drain);
      signal?.removeEventListener('abort', onAbort);
      running?.delete(child);
      if (error) return reject(error);
      if (aborted) return reject(new AbortedError(`command aborted after ${Math.round(performance.now() - started)} ms: ${(options.label ?? [file, ...args].join(' ')).slice(0, 200)}`));
      const stderr = Buffer.concat(err).toString('utf8');
      resolve({
        exitCode,
        signal: sig,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: lingered ? withNote(stderr, LINGER_NOTE) : stderr,
        timedOut,
        truncated,
        durationMs: performance.now() - started,
      });
    };
    child.on('error', (e: NodeJS.ErrnoException) => {
      kill();
      finish(null, null, new EnvError(e.code === 'ENOENT' ? `cannot run commands: "${file}" was not found on PATH` : `cannot run command: ${e.message}`, { cause: e }));
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
      // EPIPE: the program exited without reading its input; that is its business, not an error of the run.
      if (e.code !== 'EPIPE') finish(null, null, new EnvError(`cannot write the command's stdin: ${e.message}`, { cause: e }));
    });
    child.stdin!.end(options.stdin ?? '');
  });
}

/**
 * Kills the child's whole process group (the child leads it: it was spawned detached). Also after the leader
 * exited: its pid stays the group's id, and is not reused, while any member lives.
 */
export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch (err) {
    // ESRCH: the group is already gone, which is what we wanted. Anything else: kill at least the leader.
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') child.kill('SIGKILL');
  }
}

function withNote(text: string, note: string): string {
  return `${text}${text && !text.endsWith('\n') ? '\n' : ''}${note}\n`;
}
