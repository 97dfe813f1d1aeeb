import { spawn } from 'node:child_process';
import type { ProcessResult } from '../../core/index.js';
import { AbortedError, EnvError } from '../../core/index.js';

/** What `runCapped` runs, and its limits. */
export interface CappedRun {
  /** The program and its arguments (no shell). */
  argv: readonly string[];
  cwd: string;
  /** The whole environment of the process (nothing is inherited). */
  env: Record<string, string>;
  stdin?: string;
  timeoutMs: number;
  /** Cap on stdout + stderr in bytes: past it the process is killed and the output kept is cut there. */
  maxOutputBytes: number;
  signal?: AbortSignal;
}

/**
 * Runs one program as the leader of its own process group with exactly the given environment, feeds it
 * `stdin`, and collects its output. Its whole group is killed with SIGKILL when it outlives `timeoutMs`, prints
 * more than `maxOutputBytes`, or `signal` aborts (then the promise rejects with AbortedError). Resolves when
 * the process has exited and its output pipes are closed.
 */
export function runCapped(run: CappedRun): Promise<ProcessResult> {
  // Aborted before it started: the same error as an abort while it runs.
  if (run.signal?.aborted) return Promise.reject(new AbortedError(`${run.argv[0]} aborted before it started`));
  const started = performance.now();
  const child = spawn(run.argv[0], run.argv.slice(1), { cwd: run.cwd, env: run.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  return new Promise<ProcessResult>((resolve, reject) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    let truncated = false;
    let timedOut = false;
    let aborted = false;
    let settled = false;
    const kill = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ESRCH') child.kill('SIGKILL'); // ESRCH: already gone
      }
    };
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      if (truncated) return;
      const room = run.maxOutputBytes - bytes;
      if (chunk.length > room) {
        into.push(chunk.subarray(0, room));
        bytes = run.maxOutputBytes;
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
    }, run.timeoutMs);
    const onAbort = () => {
      aborted = true;
      kill();
    };
    run.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      run.signal?.removeEventListener('abort', onAbort);
      if (error) return reject(error);
      if (aborted) return reject(new AbortedError(`${run.argv[0]} aborted after ${Math.round(performance.now() - started)} ms`));
      resolve({ exitCode, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), timedOut, truncated, durationMs: performance.now() - started });
    };
    child.on('error', (e: NodeJS.ErrnoException) => finish(null, null, new EnvError(e.code === 'ENOENT' ? `cannot run ${run.argv[0]}: not found` : `cannot run ${run.argv[0]}: ${e.message}`, { cause: e })));
    child.on('close', (code, sig) => finish(code, sig));
    child.stdin!.on('error', (e: NodeJS.ErrnoException) => {
      // EPIPE: the program exited without reading its input; that is its business.
      if (e.code !== 'EPIPE') finish(null, null, new EnvError(`cannot write the input of ${run.argv[0]}: ${e.message}`, { cause: e }));
    });
    child.stdin!.end(run.stdin ?? '');
  });
}
