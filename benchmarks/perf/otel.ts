/**
 * OpenTelemetry export overhead: cost per step of a traced model-path run (a tool call and a model call each
 * step, the JSONL trace on) with live OTLP export (`otlpTap`, http/protobuf, to a collector in another process on
 * 127.0.0.1) against the same run without export.   target: export adds <= 5% to a traced step (the run's thread)
 * Spans are built and sent by the export worker thread, so three figures per step: the run's (main) thread CPU
 * time (what export takes from the run: the worker reads the run's records from its trace files, so nothing is
 * handed over per step; what is left is a second busy thread's effect), this whole process's CPU time (user + system, the
 * worker's span building, serialization and sending included, as the exported runs end with a flush: what export
 * takes from the machine, mostly on another core), and wall time; medians of alternating rounds. CPU time is the
 * figure that holds on a shared machine; wall time moves with its load. The main thread's CPU time is read from
 * /proc/self/task/<pid>/schedstat (ns) on Linux, else `process.threadCpuUsage` (Node 23.9+).
 * A control separates what export does on the run's thread from what any busy second thread does to it: the same
 * traced run without export while a worker thread does unrelated work on the other core at about the export worker's
 * duty (spins 0.6 ms, sleeps 0.4 ms).
 * Run: npm run bench:otel [-- --steps 2000 --rounds 9]
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { z } from 'zod';
import { AgentModule, Engine, baseState, defineTool, type State, type Task } from '../../src/index.js';
import { ScriptedModel } from '../../src/models/index.js';
import { jsonParser } from '../../src/kit/parsers/index.js';
import { otlpTap, readTrace, type OtlpTap } from '../../src/trace/index.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const STEPS = arg('steps', 2000);
const ROUNDS = arg('rounds', 9);

const lookup = defineTool({
  id: 'lookup',
  description: 'Look a key up',
  parameters: z.object({ key: z.string() }),
  execute: ({ key }) => `value of ${key}`,
});

/** A model-path agent that keeps no conversation (each step's prompt is built fresh), as in bench:kernel. */
class ModelAgent extends AgentModule<State> {
  initState(task: Task) {
    return baseState(task, STEPS);
  }
  override reduce(state: State): State {
    return { ...state, messages: [] };
  }
}

/** A collector in its own process: answers every request 200 and counts the bytes (its CPU is not the run's). */
async function startCollector(): Promise<{ url: string; stop: () => void; requests: () => Promise<number> }> {
  const code = `
    let n = 0;
    const s = require('node:http').createServer((req, res) => { req.resume(); req.on('end', () => { n++; res.writeHead(200, {'content-type': 'application/x-protobuf'}); res.end(); }); });
    s.listen(0, '127.0.0.1', () => console.log(s.address().port));
    process.stdin.on('data', () => console.log('requests ' + n));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  let wake: (() => void) | undefined;
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    lines.push(...d.trim().split('\n'));
    wake?.();
  });
  const next = () =>
    new Promise<string>((resolve) => {
      const take = () => (lines.length ? resolve(lines.shift()!) : (wake = take));
      take();
    });
  const port = await next();
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => child.kill(),
    requests: async () => {
      child.stdin.write('?\n');
      return Number((await next()).split(' ')[1]);
    },
  };
}

const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;
const threadCpuUsage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage;
/** This (main) thread's CPU time in µs. */
function mainThreadCpu(): number {
  if (existsSync(SCHEDSTAT)) return Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]) / 1000;
  if (threadCpuUsage) {
    const u = threadCpuUsage.call(process);
    return u.user + u.system;
  }
  throw new Error('no per-thread CPU time here (needs Linux /proc or Node 23.9+)');
}

type Figures = { main: number; cpu: number; wall: number };
let lastTraceDir: string | undefined;

/**
 * The hand-over of a recorded trace (`qitos trace export`): a recorded run's records (with their JSONL lines) fed to
 * the tap in a loop, no engine around it: the caller's CPU per step for handing a step's records to the worker. A
 * live run hands over none: the worker reads its records from its trace files.
 */
async function handOver(tap: OtlpTap, traceDir: string): Promise<number> {
  const trace = await readTrace(traceDir);
  const events = trace.events.map((rec) => [rec, JSON.stringify(rec)] as const);
  const steps = trace.steps.map((rec) => [rec, JSON.stringify(rec)] as const);
  const m0 = mainThreadCpu();
  const run = tap.open(trace.manifest)!;
  for (const [rec, line] of events) run.event(rec, line);
  for (const [rec, line] of steps) run.step(rec, line);
  run.finish(trace.manifest);
  const main = mainThreadCpu() - m0;
  await tap.flush();
  return main / steps.length;
}

/** One run of STEPS steps: µs per step, main-thread CPU, process CPU and wall (an exported run ends when its spans are sent). */
async function runOnce(dir: string, tap: OtlpTap | undefined): Promise<Figures> {
  const model = new ScriptedModel([JSON.stringify({ action: { name: 'lookup', args: { key: 'k' } } })], {
    loop: true,
    recordRequests: false,
  });
  const engine = new Engine({
    agent: new ModelAgent({ model, parser: jsonParser(), tools: [lookup] }),
    trace: { dir, ...(tap ? { tap } : {}) },
  });
  const m0 = mainThreadCpu();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await engine.run('look keys up');
  lastTraceDir = result.traceDir ?? undefined;
  await tap?.flush();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const main = mainThreadCpu() - m0;
  if (result.steps !== STEPS) throw new Error(`expected ${STEPS} steps, ran ${result.steps} (${result.stopReason})`);
  return { main: main / STEPS, cpu: (c.user + c.system) / STEPS, wall: (wall * 1000) / STEPS };
}

/** The control: a worker thread busy with work of its own (no records, no spans) for the length of one run. */
async function runBesideBusyThread(dir: string): Promise<Figures> {
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const spin = new Worker(
    `const { workerData } = require('node:worker_threads'); const stop = new Int32Array(workerData);
     while (!Atomics.load(stop, 0)) { const t = performance.now(); while (performance.now() - t < 0.6); Atomics.wait(stop, 0, 0, 0.4); }`,
    { eval: true, workerData: stop.buffer },
  );
  await new Promise((resolve) => spin.once('online', resolve));
  try {
    return await runOnce(dir, undefined);
  } finally {
    Atomics.store(stop, 0, 1);
    await spin.terminate();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const collector = await startCollector();
const dir = mkdtempSync(join(tmpdir(), 'qitos-bench-otel-'));
const failures: string[] = [];
// A queue that holds a whole run: a scripted run makes records far faster than a model-backed one, and a record
// dropped is work not measured.
const tap = await otlpTap({ endpoint: collector.url, maxQueueSize: STEPS * 4, report: (l) => failures.push(l) });
try {
  // warm-up: JIT, module loading, the exporter's first connection
  await runOnce(dir, undefined);
  await runOnce(dir, tap);
  const plain: Figures[] = [];
  const exported: Figures[] = [];
  const beside: Figures[] = [];
  // The order rotates each round: whichever run goes first in a round does not bias one side (it measurably did)
  const kinds = [
    async () => plain.push(await runOnce(dir, undefined)),
    async () => exported.push(await runOnce(dir, tap)),
    async () => beside.push(await runBesideBusyThread(dir)),
  ];
  for (let r = 0; r < ROUNDS; r++) for (let k = 0; k < kinds.length; k++) await kinds[(r + k) % kinds.length]!();
  console.log(`steps per run: ${STEPS}, rounds: ${ROUNDS} (medians; each step: a model call and a tool call)`);
  const label = { main: 'main-thread CPU', cpu: 'process CPU', wall: 'wall' };
  for (const k of ['main', 'cpu', 'wall'] as const) {
    // the median of each round's paired difference: the machine's load drifts between rounds, less within one
    const a = median(plain.map((x) => x[k]));
    const b = median(exported.map((x) => x[k]));
    const diff = median(plain.map((x, i) => exported[i]![k] - x[k]));
    const overhead = (diff / a) * 100;
    const sign = (x: number) => (x >= 0 ? '+' : '');
    console.log(
      `${label[k].padEnd(15)}: traced step ${a.toFixed(1)} µs, with OTLP export ${b.toFixed(1)} µs; ` +
        `paired difference ${sign(diff)}${diff.toFixed(1)} µs = ${sign(overhead)}${overhead.toFixed(1)}%` +
        (k === 'main' ? `  (target <= 5%: ${overhead <= 5 ? 'OK' : 'OVER'})` : ''),
    );
  }
  const control = median(plain.map((x, i) => beside[i]!.main - x.main));
  console.log(
    `control        : no export, a busy worker thread beside the run: main-thread CPU paired difference ` +
      `${control >= 0 ? '+' : ''}${control.toFixed(1)} µs = ${((control / median(plain.map((x) => x.main))) * 100).toFixed(1)}%`,
  );
  const hand: number[] = [];
  for (let r = 0; r < 5; r++) hand.push(await handOver(tap, lastTraceDir!));
  console.log(
    `hand-over of a recorded trace (qitos trace export; a live run hands over none): ` +
      `${median(hand).toFixed(1)} µs per step of main-thread CPU`,
  );
  console.log(`export requests received:    ${await collector.requests()}; failures reported: ${failures.length}`);
  for (const f of failures) console.log(`  ${f}`);
} finally {
  await tap.shutdown();
  collector.stop();
  rmSync(dir, { recursive: true, force: true });
}
