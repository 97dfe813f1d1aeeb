import { AbortedError } from '../../core/index.js';
import type { GrepWorker, GrepWorkers } from './grep-workers.js';
import { toolError } from './tool-env.js';

/** One text file to match, as bytes (decoded as UTF-8 in the worker). */
export interface GrepInput {
  path: string;
  bytes: Uint8Array;
}

/** A matching line: its file, 1-based line number and text (cut at `maxLineLength`). */
export interface GrepHit {
  path: string;
  line: number;
  text: string;
}

/** Options of a {@link GrepMatcher}. */
export interface GrepMatcherOptions {
  pattern: string;
  flags: string;
  /** Matching lines are returned up to this many characters. */
  maxLineLength: number;
  /** Total time the pattern may spend matching, over every batch of one call, ms. */
  timeoutMs: number;
  /** Aborting it terminates the worker at once. */
  signal: AbortSignal;
}

/**
 * Runs a regular expression over files in a worker thread with a hard deadline. JavaScript regexes
 * backtrack, and a pattern such as `(a+)+$` on a long line that almost matches runs for hours without ever
 * yielding: on the main thread that freezes timeouts, Ctrl-C and every other run in the process. In the
 * worker only the worker is stuck; at the deadline (or on abort) it is terminated and `match` rejects with
 * a tool error that names the pattern and the file and line where it was stuck. One matcher per grep call;
 * `close` hands its thread back to the pool.
 */
export class GrepMatcher {
  private worker: GrepWorker | undefined;
  private spentMs = 0;

  constructor(
    private readonly workers: GrepWorkers,
    private readonly options: GrepMatcherOptions,
  ) {}

  /**
   * Matching lines of `batch`, at most `cap`. `stoppedAt` is the path of the file where a match past the cap
   * was found (the search stops there), undefined when there is none.
   */
  match(batch: readonly GrepInput[], cap: number): Promise<{ hits: GrepHit[]; stoppedAt: string | undefined }> {
    if (this.options.signal.aborted) return Promise.reject(new AbortedError('grep aborted'));
    const worker = (this.worker ??= this.workers.acquire());
    return this.whenReady(worker).then(() => this.run(worker, batch, cap));
  }

  /** Waits for a new thread to start (its start-up does not count against the deadline; an abort still stops it). */
  private whenReady(worker: GrepWorker): Promise<void> {
    const { signal } = this.options;
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.worker = undefined;
        this.workers.discard(worker);
        reject(new AbortedError('grep aborted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      worker.ready.then(
        () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        (err: Error) => {
          signal.removeEventListener('abort', onAbort);
          this.worker = undefined;
          reject(toolError(`grep could not start its matching thread: ${err.message}`));
        },
      );
    });
  }

  private run(
    worker: GrepWorker,
    batch: readonly GrepInput[],
    cap: number,
  ): Promise<{ hits: GrepHit[]; stoppedAt: string | undefined }> {
    const { signal, timeoutMs, pattern, flags, maxLineLength } = this.options;
    if (signal.aborted) return Promise.reject(new AbortedError('grep aborted'));
    const thread = worker.thread;
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        thread.off('message', onMessage).off('error', onError).off('exit', onExit);
        this.spentMs += performance.now() - started;
      };
      const fail = (err: Error) => {
        done();
        // A thread that is stuck or broken is never reused.
        this.worker = undefined;
        this.workers.discard(worker);
        reject(err);
      };
      const onMessage = (m: { hits: [number, number, string][]; more: number }) => {
        done();
        resolve({
          hits: m.hits.map(([f, line, text]) => ({ path: batch[f].path, line, text })),
          stoppedAt: batch[m.more]?.path,
        });
      };
      const onError = (err: Error) => fail(toolError(`grep could not match the pattern: ${err.message}`));
      const onExit = (code: number) =>
        fail(toolError(`grep's matching thread stopped unexpectedly (exit code ${code})`));
      const onAbort = () => fail(new AbortedError('grep aborted'));
      const timer = setTimeout(() => fail(this.deadlineError(worker, batch)), Math.max(0, timeoutMs - this.spentMs));
      signal.addEventListener('abort', onAbort, { once: true });
      thread.on('message', onMessage).on('error', onError).on('exit', onExit);
      // Copied, not transferred: the bytes may be a view of an env's own storage (MemoryEnv).
      thread.postMessage({ pattern, flags, maxLineLength, files: batch.map((b) => b.bytes), cap });
    });
  }

  /** Hands the thread back for the next call (safe to call more than once). */
  close(): void {
    const w = this.worker;
    this.worker = undefined;
    if (w) this.workers.release(w);
  }

  private deadlineError(worker: GrepWorker, batch: readonly GrepInput[]): Error {
    const file = batch[Atomics.load(worker.progress, 0)]?.path;
    const where = file ? `, at ${file} line ${Atomics.load(worker.progress, 1) + 1}` : '';
    return toolError(
      `the pattern /${this.options.pattern}/${this.options.flags} ran for more ` +
        `than ${this.options.timeoutMs} ms and was stopped${where}. ` +
        'It probably backtracks catastrophically: nested repetition such as (a+)+ or (a|aa)* ' +
        'tries exponentially many ways on a line that almost matches. ' +
        'Rewrite it without nested quantifiers (e.g. a+ instead of (a+)+), anchor it, or search a narrower path or include glob.',
    );
  }
}
