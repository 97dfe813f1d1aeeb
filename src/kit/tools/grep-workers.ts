// Its declarations name Node's types: the reference lets a consumer whose tsconfig lacks `types: ["node"]` find them.
/// <reference types="node" preserve="true" />
import { Worker } from 'node:worker_threads';

/** A matching thread with the shared cell where it says which file and line it is on. */
export interface GrepWorker {
  thread: Worker;
  /** progress[0]: index of the file in the current batch; progress[1]: its 0-based line. */
  progress: Int32Array;
  /** Settles when the thread has started (rejects when it could not start). */
  ready: Promise<void>;
}

const WORKER_URL = new URL('./grep-match-worker.js', import.meta.url);
/** An idle thread is ended after this long, so tool instances that are dropped do not keep threads alive. */
const IDLE_MS = 5_000;

/**
 * The matching threads of one grep tool. Starting a worker thread costs tens of milliseconds (hundreds on a
 * loaded machine), more than matching a typical workspace, so a thread that finished a call cleanly is kept for
 * the next one: at most one idle thread, unreferenced (it never keeps the process alive) and ended after 5 s
 * unused. A thread stopped at a deadline or abort is terminated, never reused.
 */
export class GrepWorkers {
  private idle: { worker: GrepWorker; timer: NodeJS.Timeout } | undefined;

  /** A thread for one call: the idle one, or a new one. */
  acquire(): GrepWorker {
    const kept = this.idle;
    this.idle = undefined;
    if (kept) {
      clearTimeout(kept.timer);
      kept.worker.thread.ref();
      return kept.worker;
    }
    const progress = new Int32Array(new SharedArrayBuffer(8));
    const thread = new Worker(WORKER_URL, { workerData: { progress: progress.buffer } });
    const ready = new Promise<void>((resolve, reject) => {
      const settle = (err?: Error) => {
        thread.off('message', onReady).off('error', settle).off('exit', onExit);
        if (err) reject(err);
        else resolve();
      };
      const onReady = () => settle();
      const onExit = (code: number) => settle(new Error(`it exited with code ${code} before it started`));
      thread.once('message', onReady).once('error', settle).once('exit', onExit);
    });
    // Awaited by the first match; marked handled so a thread discarded before that cannot leave a stray rejection.
    ready.catch(() => undefined);
    return { thread, progress, ready };
  }

  /** Gives back a thread whose last batch finished; it is kept when no other thread is idle. */
  release(worker: GrepWorker): void {
    if (this.idle) return this.discard(worker);
    worker.thread.unref();
    const timer = setTimeout(() => {
      if (this.idle?.worker === worker) this.idle = undefined;
      this.discard(worker);
    }, IDLE_MS);
    timer.unref();
    this.idle = { worker, timer };
  }

  /** Ends a thread (stuck in a pattern, or not needed). */
  discard(worker: GrepWorker): void {
    void worker.thread.terminate();
  }
}
