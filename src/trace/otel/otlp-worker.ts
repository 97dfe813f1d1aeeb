/**
 * The OpenTelemetry export worker (a `worker_threads` Worker that `otlpTap` starts): it turns the trace records the
 * run's thread hands over into spans with the official SDK and exports them, so span building, serialization and
 * sending cost the run's thread nothing. Messages in: a batch of records, `{ flush }`, `{ shutdown }`;
 * out: `{ started }` (the SDK is loaded), `{ report }` (an export failure), `{ done }` (a flush or shutdown
 * finished). Every batch it has applied is added to the shared `processed` counter, which bounds the queue on the
 * run's side.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { RunTap } from '../../core/index.js';
import { errorMessage } from '../../core/index.js';
import { sdkSpanTap, type SdkSpanTapConfig } from './sdk-span-tap.js';
import { TraceTail } from './trace-tail.js';

/** What the worker is started with. */
export interface ExportWorkerData {
  config: SdkSpanTapConfig;
  /** An Int32Array's buffer: [0] counts the records applied so far. */
  processed: SharedArrayBuffer;
}

/**
 * One record handed over: its kind (`o` a run's first manifest, `e` an event, `s` a step, `f` the final manifest;
 * `t` a run whose records the worker reads from its trace folder itself, `{ dir, manifest }`), the run's handle, a
 * space and the record's JSON (one line: JSON text holds no raw newline).
 */
export type ExportOp = string;

/**
 * A message to the worker: records, one `ExportOp` a line (one string, so handing them over is one copy, not a
 * structured clone of many), or a flush or shutdown request.
 */
export type ExportWorkerRequest = string | { flush: number } | { shutdown: number };

/** A message from the worker. */
export type ExportWorkerReply = { started: true } | { report: string } | { done: number };

const port = parentPort;
if (!port) throw new Error('otlp-worker runs as a worker thread (otlpTap starts it)');
const { config, processed } = workerData as ExportWorkerData;
const counter = new Int32Array(processed);
const report = (line: string) => port.postMessage({ report: line } satisfies ExportWorkerReply);
const tap = await sdkSpanTap(config, report);
const runs = new Map<string, RunTap>();
/** The runs read from their trace folders, by handle, and how often they are read. */
const tails = new Map<string, TraceTail>();
const TAIL_MS = 50;
let tailTimer: ReturnType<typeof setInterval> | undefined;

/** Applies what the followed runs' writers appended since the last read (events first, as the writer writes them). */
function readTails(): void {
  for (const [handle, tail] of tails) readTail(handle, tail);
}

/** Applies a followed run's new lines; a line that cannot become spans is reported and the next ones still apply. */
function readTail(handle: string, tail: TraceTail): void {
  const run = runs.get(handle);
  try {
    tail.read((file, line) => {
      try {
        const rec = JSON.parse(line);
        if (file === 'events.jsonl') run?.event(rec);
        else run?.step(rec);
      } catch (err) {
        report(`qitos: OpenTelemetry export could not make spans of a trace record (${errorMessage(err)})`);
      }
    });
  } catch (err) {
    report(`qitos: OpenTelemetry export could not read the trace in ${tail.dir} (${errorMessage(err)})`);
  }
}

/** Follows a run's trace folder until its final manifest comes. */
function follow(handle: string, dir: string): void {
  tails.set(handle, new TraceTail(dir));
  tailTimer ??= setInterval(readTails, TAIL_MS);
}

/** The run's last lines, then its end: its writer closed its files before it sent the final manifest. */
function unfollow(handle: string): void {
  const tail = tails.get(handle);
  if (!tail) return;
  readTail(handle, tail);
  tail.close();
  tails.delete(handle);
  if (!tails.size && tailTimer) {
    clearInterval(tailTimer);
    tailTimer = undefined;
  }
}

/** Applies one record; one that cannot become spans is reported (the run's thread tells only the first failure). */
function apply(op: ExportOp): void {
  const space = op.indexOf(' ');
  const handle = op.slice(1, space);
  try {
    const rec = JSON.parse(op.slice(space + 1));
    switch (op[0]) {
      case 'o':
        runs.set(handle, tap.open(rec));
        return;
      case 't':
        runs.set(handle, tap.open(rec.manifest));
        follow(handle, rec.dir);
        return;
      case 'e':
        return runs.get(handle)?.event(rec);
      case 's':
        return runs.get(handle)?.step(rec);
      case 'f':
        unfollow(handle);
        runs.get(handle)?.finish(rec);
        runs.delete(handle);
        return;
    }
  } catch (err) {
    report(`qitos: OpenTelemetry export could not make spans of a trace record (${errorMessage(err)})`);
  }
}

port.on('message', (msg: ExportWorkerRequest) => {
  if (typeof msg === 'string') {
    const ops = msg.split('\n');
    ops.pop(); // after the last newline
    for (const op of ops) apply(op);
    Atomics.add(counter, 0, ops.length);
  } else if ('flush' in msg) {
    readTails();
    void tap.flush().then(() => port.postMessage({ done: msg.flush }));
  } else {
    readTails();
    if (tailTimer) clearInterval(tailTimer);
    void tap.shutdown().then(() => port.postMessage({ done: msg.shutdown }));
  }
});
port.postMessage({ started: true } satisfies ExportWorkerReply);
