import { spawn } from 'node:child_process';

/** What {@link runCommand} returns: exit, output as bytes, and whether a limit stopped it. */
export interface CommandResult {
  exitCode: number | null;
  signal: string | null;
  stdout: Buffer;
  stderr: Buffer;
  timedOut: boolean;
  /** The output passed `maxOutputBytes`: the command was killed and the output kept is cut there. */
  truncated: boolean;
  durationMs: number;
}

/** Options of {@link runCommand}. */
export interface RunCommandOptions {
  /** The whole environment the program sees (nothing of the host's is added). */
  env: Record<string, string>;
  cwd?: string;
  timeoutMs: number;
  /** Cap on stdout + stderr bytes (default 64 MiB). */
  maxOutputBytes?: number;
  /** Written to stdin, which is then closed (stdin is empty otherwise). */
  input?: string | Uint8Array;
  signal?: AbortSignal;
}

/**
 * Runs a program with an argument list (no shell), a given environment, a timeout and an output cap: the plumbing
 * envs use to drive git and the docker CLI. Rejects only when the program cannot be started (ENOENT: the caller
 * names what is missing); everything else, a timeout or an abort included, is in the result.
 */
export function runCommand(file: string, args: readonly string[], options: RunCommandOptions): Promise<CommandResult> {
  const cap = options.maxOutputBytes ?? 64 * 1024 * 1024;
  const started = performance.now();
  return new Promise<CommandResult>((resolve, reject) => {
    const child = spawn(file, [...args], { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    let truncated = false;
    let timedOut = false;
    let killed = false;
    let settled = false;
    const kill = () => {
      killed = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    };
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ exitCode: code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err), timedOut, truncated, durationMs: performance.now() - started });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    timer.unref?.();
    const onAbort = () => kill();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      if (truncated) return;
      if (bytes + chunk.length > cap) {
        into.push(chunk.subarray(0, cap - bytes));
        bytes = cap;
        truncated = true;
        kill();
        return;
      }
      bytes += chunk.length;
      into.push(chunk);
    };
    child.stdout.on('data', collect(out));
    child.stderr.on('data', collect(err));
    child.stdin.on('error', (e: NodeJS.ErrnoException) => {
      // EPIPE: the program exited without reading all its input; its exit status says how it went.
      if (e.code === 'EPIPE' || settled) return;
      settled = true;
      kill();
      reject(e);
    });
    child.on('error', (e) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      reject(e);
    });
    // After a kill, the exit is enough: a process the program started may still hold its output open.
    child.on('exit', (code, signal) => {
      if (!killed) return;
      child.stdout.destroy();
      child.stderr.destroy();
      finish(code, signal);
    });
    child.on('close', (code, signal) => finish(code, signal));
    if (options.signal?.aborted) kill();
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
  });
}

const FALLBACK_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** A cleared environment for plumbing: the host's PATH (to find the program), HOME and LANG as given, nothing else. */
export function plumbingEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH || FALLBACK_PATH, HOME: home, LANG: 'C', ...extra };
}
