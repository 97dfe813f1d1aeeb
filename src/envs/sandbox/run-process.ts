// Its declarations name Node's types: the reference lets a consumer whose tsconfig lacks `types: ["node"]` find them.
/// <reference types="node" preserve="true" />
import { spawn, type ChildProcess } from 'node:child_process';
import type { ProcessResult } from '../../core/index.js';
import { AbortedError, EnvError } from '../../core/index.js';

/** After the program exits, how long output may still arrive (restarted by each chunk) before the run ends. */
const DRAIN_MS = 200;
/** Added to stderr when the program exited but a background process it started still held its output. */
export const LINGER_NOTE =
  '[the command exited, but a background process it started still held its output, so it was stopped with the command. ' +
  'To keep a background process running, send its output to a file: cmd > out.log 2>&1 &]';

/** Options of {@link runProcess} and {@link runProcessBytes}. */
export interface RunProcessOptions {
  /** The folder the program starts in (default: this process's). */
  cwd?: string;
  /** The whole environment the program sees (nothing is inherited). */
  env: Record<string, string>;
  /** Wall-clock limit, ms: past it the process group is killed and the result says `timedOut`. */
  timeoutMs: number;
  /** Cap on stdout + stderr together, bytes: past it the group is killed and the result says `truncated`. */
  maxOutputBytes: number;
  /** Aborting kills the group (runProcess then rejects with AbortedError; runProcessBytes says `aborted`). */
  signal?: AbortSignal;
  /** Written to stdin, which is then closed (default: closed at once). */
  stdin?: string | Uint8Array;
  /** The child is in this set while it runs (so an owner can kill everything still running). */
  running?: Set<ChildProcess>;
  /** Run as this user and group (Node's spawn `uid`/`gid`; needs the privilege to switch). */
  uid?: number;
  gid?: number;
  /** Names the command in errors (default: the program and its arguments). */
  label?: string;
}

/** What {@link runProcessBytes} returns: the exit, the output as bytes, and which limit (if any) ended the run. */
export interface ProcessBytes {
  exitCode: number | null;
  signal: string | null;
  stdout: Buffer;
  stderr: Buffer;
  timedOut: boolean;
  /** The output passed `maxOutputBytes`: the group was killed and the output kept is cut there. */
  truncated: boolean;
  /** The caller's signal aborted the run (the group was killed). */
  aborted: boolean;
  /** The program exited, but a background process it started held the output; it was stopped with its group. */
  lingered: boolean;
  durationMs: number;
}

/**
 * Runs a program as the leader of its own process group, with exactly the environment given, a wall-clock
 * timeout, an output cap and abort, and returns its output as text:
 * - the timeout, the cap and the abort kill the whole group (`SIGKILL` to `-pgid`), children included;
 * - the run ends when the program exits: output still in flight is read for up to 200 ms more; a
 *   background process that still holds the output pipes then (`server &`) is stopped with its group and
 *   {@link LINGER_NOTE} is added to stderr, instead of the run waiting for it until the timeout.
 * Rejects with AbortedError when aborted, and with an EnvError naming the program when it cannot be started.
 * The one runner of untrusted programs: HostEnv's commands (through a {@link Sandbox} command line) and skill
 * scripts (inside bubblewrap); envs' plumbing (git, the docker CLI) uses {@link runProcessBytes}.
 */
export async function runProcess(
  file: string,
  args: readonly string[],
  options: RunProcessOptions,
): Promise<ProcessResult> {
  const label = () => (options.label ?? [file, ...args].join(' ')).slice(0, 200);
  const { signal } = options;
  // Already aborted: the same error as an abort while it runs (the caller's own reason when it is one).
  if (signal?.aborted)
    throw AbortedError.isInstance(signal.reason)
      ? signal.reason
      : new AbortedError(`command aborted before it started: ${label()}`);
  const r = await runProcessBytes(file, args, options).catch((e: NodeJS.ErrnoException) => {
    throw new EnvError(
      e.code === 'ENOENT'
        ? `cannot run "${file}": it was not found (is it installed, and on PATH?)`
        : `cannot run "${file}": ${e.message}`,
      { cause: e },
    );
  });
  if (r.aborted) throw new AbortedError(`command aborted after ${Math.round(r.durationMs)} ms: ${label()}`);
  const stderr = r.stderr.toString('utf8');
  return {
    exitCode: r.exitCode,
    signal: r.signal,
    stdout: r.stdout.toString('utf8'),
    stderr: r.lingered ? withNote(stderr, LINGER_NOTE) : stderr,
    timedOut: r.timedOut,
    truncated: r.truncated,
    durationMs: r.durationMs,
  };
}

/**
 * {@link runProcess} with the output as bytes (binary-safe: a `git diff --binary`, a tar stream) and an abort
 * reported in the result rather than thrown. Rejects only when the program cannot be started or its stdin cannot
 * be written, with Node's own error (`code` ENOENT: the caller names what is missing).
 */
export function runProcessBytes(
  file: string,
  args: readonly string[],
  options: RunProcessOptions,
): Promise<ProcessBytes> {
  const { signal, running, timeoutMs, maxOutputBytes: cap } = options;
  const started = performance.now();
  if (signal?.aborted) {
    return Promise.resolve({
      exitCode: null,
      signal: null,
      stdout: Buffer.alloc(0),
      stderr: Buffer.alloc(0),
      timedOut: false,
      truncated: false,
      aborted: true,
      lingered: false,
      durationMs: 0,
    });
  }
  const child = spawn(file, args, {
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    env: options.env,
    detached: true, // its own process group, so a kill reaches the command's children too
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(options.uid !== undefined ? { uid: options.uid } : {}),
    ...(options.gid !== undefined ? { gid: options.gid } : {}),
  });
  running?.add(child);

  return new Promise<ProcessBytes>((resolve, reject) => {
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
      resolve({
        exitCode,
        signal: sig,
        stdout: Buffer.concat(out),
        stderr: Buffer.concat(err),
        timedOut,
        truncated,
        aborted,
        lingered,
        durationMs: performance.now() - started,
      });
    };
    child.on('error', (e) => {
      kill();
      finish(null, null, e);
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
      if (e.code !== 'EPIPE') {
        kill();
        finish(null, null, e);
      }
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
