/**
 * `qitos serve` under load: 200 streamed chat completions at concurrency 50 on loopback against a ReActAgent whose
 * scripted model takes 50 ms per call (one call per run, traces written). Every request asks a different question
 * and must get its own answer and usage back: none lost, none mixed up. Latency per request (send to [DONE])
 * p50/p99 against the same 200 runs through `Engine.run` directly at the same concurrency: the goal is within 1.2x
 * at p50.
 *
 * The client runs in a worker thread (serve-load.mjs), so its work is off the server's event loop. Two clients: a
 * lean one on `node:http` (the figure for the goal: on this 2-core machine the client shares the CPU with the
 * server, and the `openai` SDK's own work per request is several times the server's) and the `openai` SDK. A
 * third server is the floor: a bare `node:http` handler around `Engine.run` (no framework, no validation, no live
 * events, the same two writes per response), what any HTTP server in this process pays. All are measured at steady
 * state (after warm-up rounds: a server runs warm) and interleaved round by round, because the machine is shared.
 * Traces are written to /dev/shm when there is one (`--disk`: the OS temp folder), so the shared disk's stalls do
 * not decide the figures. Memory: heap and RSS after warm-up, after the load, and after a GC.
 * Run: npm run bench:serve [-- --disk] ; with -- --write, records the figures in docs/performance.md `## Server`.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { ModelRequest, State } from '../../src/core/index.js';
import { Engine } from '../../src/engine/engine.js';
import { ReActAgent } from '../../src/kit/agents/index.js';
import { ScriptedModel } from '../../src/models/index.js';
import { startServer } from '../../src/server/index.js';
import { writePerformanceSection } from './performance-doc.js';

const REQUESTS = 200;
const CONCURRENCY = 50;
const MODEL_MS = 50;
const WARMUP = 4;
const ROUNDS = 8;
const SEQUENTIAL = 20;

const textOf = (m: ModelRequest['messages'][number] | undefined): string => {
  const c = (m as { content?: unknown } | undefined)?.content;
  return typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: { text?: string }) => p.text ?? '').join('') : '';
};
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
const mb = (b: number) => (b / 1024 / 1024).toFixed(1);
const gc = () => (globalThis as { gc?: () => void }).gc?.();

// Traces go to a RAM-backed folder when the machine has one (both ways write the same traces): on this shared VM
// the disk's time for the same writes swings from 0.2 to 4 ms per run from one minute to the next, which would
// decide the comparison instead of the server. `--disk` puts them under the OS temp folder instead.
const ram = !process.argv.includes('--disk') && existsSync('/dev/shm');
const dir = await mkdtemp(join(ram ? '/dev/shm' : tmpdir(), 'qitos-bench-serve-'));
const model = new ScriptedModel(
  [(req) => ({ text: `Thought: easy\nFinal Answer: answer to ${textOf(req.messages.at(-1))}`, delayMs: MODEL_MS })],
  { loop: true, recordRequests: false, chunkSize: 8 },
);
const engine = new Engine<State>({ agent: new ReActAgent({ model }), trace: { dir: join(dir, 'traces') } });
const server = await startServer({
  agents: [{ id: 'echo', engine }],
  traceDir: join(dir, 'traces'),
  port: 0,
  maxRuns: CONCURRENCY,
});
const floor = await floorServer();

/** The floor: `Engine.run` behind a bare `node:http` handler, answering the same SSE frames in two writes. */
async function floorServer(): Promise<{ server: Server; url: string }> {
  const frame = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
  const s = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (t: string) => (body += t));
    req.on('end', async () => {
      const question = JSON.parse(body).messages[0].content as string;
      const head = { id: 'chatcmpl-floor', object: 'chat.completion.chunk', created: 0, model: 'echo' };
      const chunk = (delta: object, finish: string | null) =>
        frame({ ...head, choices: [{ index: 0, delta, finish_reason: finish }], usage: null });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: '' }, null));
      const r = await engine.run(question);
      const usage = {
        prompt_tokens: r.usage.tokens.input,
        completion_tokens: r.usage.tokens.output,
        total_tokens: r.usage.tokens.input + r.usage.tokens.output,
      };
      res.end(
        chunk({ content: r.finalResult }, null) +
          chunk({}, 'stop') +
          frame({ ...head, choices: [], usage }) +
          'data: [DONE]\n\n',
      );
    });
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return { server: s, url: `http://127.0.0.1:${(s.address() as AddressInfo).port}` };
}

/** Runs `n` jobs at `concurrency`, returning each job's latency in ms. */
async function pool(n: number, concurrency: number, job: (i: number) => Promise<void>): Promise<number[]> {
  const out: number[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const t0 = performance.now();
        await job(i);
        out[i] = performance.now() - t0;
      }
    }),
  );
  return out;
}

let wrong = 0;
let lost = 0;
const direct = (round: number, requests = REQUESTS, concurrency = CONCURRENCY) =>
  pool(requests, concurrency, async (i) => {
    const r = await engine.run(`question ${round}-${i}`);
    if (r.finalResult !== `answer to question ${round}-${i}`) wrong++;
  });
const worker = new Worker(new URL('./serve-load.mjs', import.meta.url));
/** One round of the load through the worker thread, against `url` with `client`; its latencies. */
async function served(
  url: string,
  client: 'http' | 'sdk',
  round: number,
  requests = REQUESTS,
  concurrency = CONCURRENCY,
): Promise<number[]> {
  const r = await new Promise<{ latencies: number[]; lost: number; wrong: number }>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (m) => {
      worker.off('error', reject);
      resolve(m);
    });
    worker.postMessage({ url, client, r: round, requests, concurrency });
  });
  lost += r.lost;
  wrong += r.wrong;
  return r.latencies;
}

type Way = 'direct' | 'served' | 'sdk' | 'floor';
const ways: Record<Way, (round: number) => Promise<number[]>> = {
  direct: (round) => direct(round),
  served: (round) => served(server.url, 'http', round),
  sdk: (round) => served(server.url, 'sdk', round),
  floor: (round) => served(floor.url, 'http', round),
};
const lat: Record<Way, number[]> = { direct: [], served: [], sdk: [], floor: [] };
// Each round's p50 against the direct p50 of the same round: pairs figures taken seconds apart, so a change in the
// shared machine's load (or its disk's) between rounds moves both sides of a ratio alike.
const paired: Record<Way, number[]> = { direct: [], served: [], sdk: [], floor: [] };
// The main thread's busy time per request (event-loop utilisation): what each request costs the one thread that
// runs the engine, whatever the queueing; the client's work is in its worker thread and not counted.
const busy: Record<Way, number> = { direct: 0, served: 0, sdk: 0, floor: 0 };
let start = process.memoryUsage();
for (let round = -WARMUP; round < ROUNDS; round++) {
  if (round === 0) {
    gc();
    start = process.memoryUsage();
  }
  // the order turns each round, so no way always runs right after the same other one
  const order = Object.keys(ways) as Way[];
  const shift = ((round % order.length) + order.length) % order.length;
  const roundP50 = {} as Record<Way, number>;
  for (const way of [...order.slice(shift), ...order.slice(0, shift)]) {
    const e0 = performance.eventLoopUtilization();
    const out = await ways[way](round);
    if (round < 0) continue;
    busy[way] += performance.eventLoopUtilization(e0).active / (REQUESTS * ROUNDS);
    lat[way].push(...out);
    roundP50[way] = pct(out, 50);
  }
  if (round >= 0) for (const way of order) paired[way].push(roundP50[way] / roundP50.direct);
}
const after = process.memoryUsage();
// One request at a time: the server's own latency per request, without CPU contention between requests.
const d1: number[] = [];
const s1: number[] = [];
for (let round = 0; round < 2; round++) {
  d1.push(...(await direct(100 + round, SEQUENTIAL, 1)));
  s1.push(...(await served(server.url, 'http', 100 + round, SEQUENTIAL, 1)));
}
gc();
await new Promise((r) => setTimeout(r, 200));
gc();
const settled = process.memoryUsage();
await worker.terminate();
await server.close({ graceMs: 1000 });
await new Promise((r) => floor.server.close(r));
await rm(dir, { recursive: true, force: true });

const f = (x: number) => x.toFixed(1);
const p50 = (w: Way) => pct(lat[w], 50);
const ratio = (w: Way) => pct(paired[w], 50);
const spread = (w: Way) => `${Math.min(...paired[w]).toFixed(2)}-${Math.max(...paired[w]).toFixed(2)}`;
const row = (label: string, w: Way) =>
  `| ${label} | ${f(p50(w))} ms | ${f(pct(lat[w], 99))} ms ` +
  `| ${w === 'direct' ? '' : `**${ratio(w).toFixed(2)}x** (${spread(w)})`} ` +
  `| ${busy[w].toFixed(2)} ms |`;
for (const w of Object.keys(ways) as Way[])
  console.log(
    `${w.padEnd(6)} p50 ${f(p50(w))} ms  p99 ${f(pct(lat[w], 99))} ms  ratio ` +
      `p50 ${ratio(w).toFixed(2)}x (rounds ${spread(w)})  busy/request ${busy[w].toFixed(2)} ms`,
  );
console.log(
  `one at a time: direct p50 ${f(pct(d1, 50))} ms, served p50 ${f(pct(s1, 50))} ms, ratio ${(pct(s1, 50) / pct(d1, 50)).toFixed(2)}x`,
);
console.log(`lost ${lost}, wrong or mixed up ${wrong}, of ${REQUESTS * (ROUNDS + WARMUP)} per way`);
console.log(
  `heap ${mb(start.heapUsed)} -> ${mb(after.heapUsed)} -> ${mb(settled.heapUsed)} MB after ` +
    `GC; rss ${mb(start.rss)} -> ${mb(after.rss)} -> ${mb(settled.rss)} MB; live runs ` +
    `left ${server.runs.active}`,
);

writePerformanceSection(`## Server

\`npm run bench:serve\` (\`benchmarks/perf/serve.ts\`). Measured ${new Date().toISOString().slice(0, 10)} on the shared 2-core machine (noisy). ${REQUESTS}
requests at concurrency ${CONCURRENCY}, ${ROUNDS} rounds per way after ${WARMUP} warm-up rounds (a server runs warm), the ways
interleaved round by round: a ReActAgent on a scripted model that takes ${MODEL_MS} ms per call (one call per run, traces
written ${
  ram
    ? 'to `/dev/shm`: on this shared VM the same writes on disk took 0.2 to 4 ms per run from ' +
      'one minute to the next, stalls that hit both ways and decide nothing about the server'
    : 'to the OS temp folder (`--disk`)'
}); the served requests are streamed chat completions with usage on loopback, from a client in a worker
thread. A ratio is a round's p50 over the p50 of \`Engine.run\` called directly in the same process at the same
concurrency in the same round; the table gives the median over the rounds and, in brackets, the lowest and highest.

| | p50, all rounds | p99, all rounds | ratio at p50 (goal 1.2x) | main-thread busy time per request |
|---|---|---|---|---|
${row('`Engine.run` directly', 'direct')}
${row('`qitos serve`, lean `node:http` client', 'served')}
${row('`qitos serve`, `openai` SDK client', 'sdk')}
${row('floor: bare `node:http` handler around `Engine.run`', 'floor')}

One request at a time (${SEQUENTIAL} x 2): \`Engine.run\` p50 ${f(pct(d1, 50))} ms, served ${f(pct(s1, 50))} ms (${(pct(s1, 50) / pct(d1, 50)).toFixed(2)}x).

The goal is ${ratio('served') <= 1.2 ? 'met' : '**not met**'} with the lean client (${ratio('served').toFixed(2)}x). How to read the table: at concurrency ${CONCURRENCY} the
engine's one thread is near saturation (${CONCURRENCY} runs x ${busy.direct.toFixed(2)} ms of its time each, against the ${MODEL_MS} ms a run waits for the
model), so p50 follows the busy time per request. The floor row is what any HTTP server in this process pays for
the same exchange (parsing, two socket writes on loopback); \`qitos serve\` costs ${(busy.served - busy.floor).toFixed(2)} ms per request more than it,
for routing, validation, the live event stream and the streamed deltas. The lean client is the figure for the
goal because on this 2-core machine the client's work competes with the server's: the SDK row is the same server
with the \`openai\` SDK as client, whose own work per request (undici, web streams, its SSE decoder) runs on the
same two cores; with the client on another machine, as in use, the lean row applies. Busy time counts time the thread
was runnable but preempted, so on a loaded machine all figures are inflated.

What was cut to get here: the chat route reads its JSON body from the Node request with its own cap (Hono's
body-limit middleware built a fetch \`Request\`, a web stream and an abort signal per request); a run's start parses
the task once (the engine's parse) and makes one abort controller fewer; chunk frames serialize the fields every
chunk shares once per response; hashes use one-shot \`crypto.hash\` where Node has it (20.12+) and the manifest's
hashes are computed once per run. This bench on the code before and after, alternated twice on 2026-11-26: busy time
per served request 1.22 and 1.45 ms before, 1.08 and 1.07 ms after; ratio 1.18x and 1.42x before, 1.16x and 1.13x
after (five more runs after: 1.05x to 1.18x). The harness changed too, and that mattered as much: the first version
of this bench measured after one warm-up round (the JIT still compiling), through the SDK only, with traces on
the disk, and gave 1.4x to 2.5x.
Kept from before: the SSE frames of a batch of events go to the socket in one write, the
last batch in the same write as the end of the response; events of one event-loop turn are batched; a client's
disconnect is watched on the Node response. Tried and dropped: writing traces on libuv's thread pool instead of
synchronously (the event loop was freed, but each run then waited for about ten thread-pool round trips in a queue
shared by fifty runs: p50 rose by a quarter directly and by a half served).

Lost: ${lost}; wrong or mixed-up answers: ${wrong} (each request asked its own question and checked its answer and usage).
Memory (heap used / RSS): ${mb(start.heapUsed)} / ${mb(start.rss)} MB after warm-up, ${mb(after.heapUsed)} / ${mb(after.rss)} MB after the
load, ${mb(settled.heapUsed)} / ${mb(settled.rss)} MB after a GC (the RSS includes the worker thread's heap); runs left registered:
${server.runs.active}.
`);
