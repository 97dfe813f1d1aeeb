// Its options name a Node type (ResourceLimits): its .d.ts must pull in @types/node for consumers without types: ["node"].
/// <reference types="node" preserve="true" />
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ResourceLimits, Worker } from 'node:worker_threads';
import type { EventRecord, Manifest, Redactor, RunTap, StepRecord, TraceTap } from '../../core/index.js';
import { errorMessage } from '../../core/index.js';
import { resolveOtlpEndpoint, type OtlpEndpoint, type OtlpEndpointOptions } from './otlp-endpoint.js';
import type { ExportOp, ExportWorkerData, ExportWorkerReply, ExportWorkerRequest } from './otlp-worker.js';
import type { RunSpanOptions } from './run-spans.js';

/** Records are posted to the export worker at most this long after they are made, at once when this many wait. */
const BATCH_MS = 20;
const BATCH_RECORDS = 512;
/** The smallest old-generation heap (MB) of the export worker `workerLimits` may set. */
const MIN_WORKER_HEAP_MB = 4;
/**
 * How long a flush or shutdown waits for the export worker to start (load the SDK) before its export timeout starts:
 * on a loaded machine that load alone can take longer than the export timeout.
 */
const START_MS = 30_000;

/** Options of `otlpTap`. */
export interface OtlpTapOptions extends OtlpEndpointOptions, RunSpanOptions {
  /** `service.name` of the spans' resource (default `OTEL_SERVICE_NAME`, else `qitos`). */
  serviceName?: string;
  /** Where `OTEL_*` variables are read from (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Told once, in one line, when an export first fails (the collector is unreachable, refuses the spans, the queue
   * overflows, or the export worker dies); later failures are not told again. Default: a line on stderr.
   */
  report?: (line: string) => void;
  /**
   * Records (on the run's side) and spans (in the export worker) held for export at most (default 2048): past it
   * new ones are dropped, never waited for.
   */
  maxQueueSize?: number;
  /** How often queued spans are sent, in ms (default 1000). */
  scheduledDelayMs?: number;
  /** Applied to every record before it becomes spans (traces that were not redacted by this machine's run). */
  redactor?: Redactor;
  /**
   * Memory limits of the export worker (Node's `ResourceLimits`); past them it dies, and the runs go on. A heap under
   * `MIN_WORKER_HEAP_MB` is refused: V8 can abort the whole process when a worker's heap cannot even hold its start.
   */
  workerLimits?: ResourceLimits;
}

/** A trace tap that sends runs to an OTLP collector as OpenTelemetry GenAI spans. */
export interface OtlpTap extends TraceTap {
  /** Where the spans go. */
  readonly endpoint: OtlpEndpoint;
  /** Sends every span ended so far (bounded by the export timeout, once the export worker has started). */
  flush(): Promise<void>;
  /** Flushes and stops the export worker; later runs are not exported. Bounded as `flush`. */
  shutdown(): Promise<void>;
}

/**
 * A trace tap (`TraceOptions.tap`) that exports runs live over OTLP/HTTP (protobuf or JSON) as spans in the
 * OpenTelemetry GenAI semantic conventions: an `invoke_agent` span per run, a `chat` span per model call, an
 * `execute_tool` span per tool call, a traced sub-run's run span under its parent's.
 *
 * The spans are built and sent by a worker thread with the official SDK (a batch span processor with a bounded
 * queue), so the run's thread only hands each record over: the JSONL line the trace writer already made, joined
 * into one string posted every few milliseconds (`BATCH_MS`) and at a run's end. A slow or unreachable collector, a
 * full queue or a dead worker never slows or fails a run; the first failure is reported once (`report`). Call
 * `shutdown()` when the runs are done; the worker never keeps the process alive by itself.
 */
export async function otlpTap(options: OtlpTapOptions = {}): Promise<OtlpTap> {
  const env = options.env ?? process.env;
  const endpoint = resolveOtlpEndpoint(options, env);
  const heap = options.workerLimits?.maxOldGenerationSizeMb;
  if (heap !== undefined && !(heap >= MIN_WORKER_HEAP_MB))
    throw new Error(`workerLimits.maxOldGenerationSizeMb must be at least ${MIN_WORKER_HEAP_MB} (got ${heap})`);
  const report = once(options.report ?? ((line: string) => process.stderr.write(line + '\n')));
  const maxQueueSize = options.maxQueueSize ?? 2048;
  const processed = new SharedArrayBuffer(4);
  const applied = new Int32Array(processed);
  const data: ExportWorkerData = {
    config: {
      endpoint,
      serviceName: options.serviceName ?? env.OTEL_SERVICE_NAME ?? 'qitos',
      content: options.content ?? false,
      maxQueueSize,
      scheduledDelayMs: options.scheduledDelayMs ?? 1000,
    },
    processed,
  };
  const worker = await startWorker(data, options.workerLimits);

  let posted = 0;
  /** Records waiting to be posted, one per line, and how many. */
  let pending = '';
  let pendingCount = 0;
  let stopped = false;
  let dead = false;
  let nextRun = 0;
  let nextWait = 0;
  const waits = new Map<number, () => void>();
  let started = false;
  /** Flushes and shutdowns waiting for the worker to start, to start their export timeout then. */
  const onStart = new Set<() => void>();
  const fail = (why: string) => {
    if (dead) return;
    dead = true;
    pending = '';
    pendingCount = 0;
    report(`qitos: OpenTelemetry export to ${endpoint.url} stopped (${why}); runs go on, their spans are not sent`);
    for (const done of waits.values()) done();
    waits.clear();
  };
  worker.on('message', (msg: ExportWorkerReply) => {
    if ('report' in msg) report(msg.report);
    else if ('started' in msg) {
      started = true;
      for (const arm of onStart) arm();
      onStart.clear();
    } else waits.get(msg.done)?.();
  });
  worker.on('error', (err) => fail(`the export worker failed: ${errorMessage(err)}`));
  worker.on('exit', (code) => fail(`the export worker exited with code ${code}`));
  worker.unref(); // after the listeners: adding one refs the worker again

  const post = (msg: ExportWorkerRequest) => {
    if (dead) return;
    try {
      worker.postMessage(msg);
    } catch (err) {
      fail(`the export worker could not be given records: ${errorMessage(err)}`);
    }
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const send = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (!pendingCount) return;
    posted += pendingCount;
    post(pending);
    pending = '';
    pendingCount = 0;
  };
  /** Posts what is queued within BATCH_MS: one message for many steps (a message costs far more than a record). */
  const sendSoon = () => {
    if (pendingCount >= BATCH_RECORDS) send();
    else if (!timer) (timer = setTimeout(send, BATCH_MS)).unref();
  };
  const push = (op: ExportOp) => {
    pending += op + '\n';
    pendingCount++;
  };
  /** Queues a run's event or step, or drops it when the worker is that far behind. */
  const queue = (op: ExportOp) => {
    if (posted + pendingCount - Atomics.load(applied, 0) >= maxQueueSize) {
      report(`qitos: OpenTelemetry export queue is full (${maxQueueSize} records); new records are dropped`);
      return;
    }
    push(op);
  };
  const clean = <T>(value: T): T => (options.redactor ? options.redactor.redactValue(value) : value);
  const json = (rec: object, line: string | undefined) =>
    options.redactor || line === undefined ? JSON.stringify(clean(rec)) : line;
  /**
   * Posts what is queued and waits until the worker did `what`: at most the export timeout and two seconds once the
   * worker has started, and `START_MS` for it to start.
   */
  const request = (what: 'flush' | 'shutdown'): Promise<void> => {
    send();
    if (dead) return Promise.resolve();
    const id = nextWait++;
    const ms = endpoint.timeoutMs + 2000;
    worker.ref(); // a pending flush keeps the process up, for at most the timers below
    return new Promise<void>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const expire = (after: number, line: string) => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          report(line);
          done();
        }, after);
      };
      const arm = () =>
        expire(
          ms,
          `qitos: OpenTelemetry export to ${endpoint.url} did not finish within ${ms} ms; spans not sent are dropped`,
        );
      const done = () => {
        clearTimeout(timer);
        onStart.delete(arm);
        waits.delete(id);
        if (!waits.size) worker.unref();
        resolve();
      };
      if (started) arm();
      else {
        onStart.add(arm);
        expire(
          START_MS,
          `qitos: the OpenTelemetry export worker did not start within ${START_MS} ms; spans not sent are dropped`,
        );
      }
      waits.set(id, done);
      post(what === 'flush' ? { flush: id } : { shutdown: id });
    });
  };

  return {
    endpoint,
    open(first: Manifest, dir?: string): RunTap | undefined {
      if (stopped || dead) return undefined;
      const handle = String(nextRun++);
      if (dir !== undefined && !options.redactor) {
        // The worker reads the run's records from its trace files as the writer appends them: the run's thread
        // hands over nothing per step, only the folder now and the final manifest at the end.
        push(`t${handle} ${JSON.stringify({ dir, manifest: first })}`);
        send();
        return {
          event: () => undefined,
          step: () => undefined,
          finish: (last: Manifest) => {
            if (dead) return;
            push(`f${handle} ${JSON.stringify(last)}`);
            send();
          },
        };
      }
      push(`o${handle} ${JSON.stringify(clean(first))}`);
      return {
        event: (rec: EventRecord, line?: string) => {
          if (dead) return;
          queue(`e${handle} ${json(rec, line)}`);
          sendSoon();
        },
        step: (rec: StepRecord, line?: string) => {
          if (dead) return;
          queue(`s${handle} ${json(rec, line)}`);
          sendSoon();
        },
        finish: (last: Manifest) => {
          if (dead) return;
          push(`f${handle} ${JSON.stringify(clean(last))}`);
          send();
        },
      };
    },
    flush: () => request('flush'),
    shutdown: async () => {
      if (stopped) return;
      stopped = true;
      await request('shutdown');
      dead = true; // its exit from here on is expected, not a failure
      await worker.terminate();
    },
  };
}

/**
 * Starts the export worker: `otlp-worker.js` next to this module (the package), or, when this module runs from its
 * TypeScript source (the repository's tests and benchmarks), `otlp-worker.ts` behind tsx's loader, registered in
 * the worker first (Node 20 does not apply a worker's `--import` loader to its entry).
 */
async function startWorker(workerData: ExportWorkerData, resourceLimits: ResourceLimits | undefined): Promise<Worker> {
  const { Worker } = await import('node:worker_threads');
  const options = { workerData, ...(resourceLimits ? { resourceLimits } : {}) };
  const built = new URL('./otlp-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(built))) return new Worker(built, options);
  const source = new URL('./otlp-worker.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(source)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), options);
}

/** `report`, called at most once: the first failure is told, later ones are not. */
function once(report: (line: string) => void): (line: string) => void {
  let told = false;
  return (line) => {
    if (told) return;
    told = true;
    report(line);
  };
}
