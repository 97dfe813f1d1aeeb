/**
 * `qitos board` over a large folder: the time to list 10,000 runs (every run folder holds a 2 KB manifest like a
 * real run's; 20 of them are running, with a steps.jsonl the index follows).
 * - cold: a new index with no cache reads every manifest (the first start; the OS file cache is warm, as it is
 *   after the runs were written);
 * - cold + cache: the same, writing the cache file (the first start of `qitos board`);
 * - warm: a new index with that cache file (a later start): it stats every manifest and reads none;
 * - refresh, nothing changed / 100 manifests changed: what each poll of a page costs;
 * - GET /api/runs: the whole listing as the page loads it (in-process request through the app, JSON of 10,000 rows).
 * Baseline: `qitos runs`' listRuns on the same folder (reads and checks every manifest).
 * Each figure is the median of 3 rounds (the machine is shared). Goal: under a second for 10,000 runs.
 * Run: npm run bench:board ; with -- --write, records the figures in docs/performance.md `## Runs board`.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoardIndex } from '../../src/server/board/board-index.js';
import { createBoardApp } from '../../src/server/board/board-app.js';
import { listRuns } from '../../src/app/run-listing.js';
import { writePerformanceSection } from './performance-doc.js';

const RUNS = 10_000;
const RUNNING = 20;

function manifest(i: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const running = i < RUNNING;
  const objective = `Task ${i}: what is ${i} * 23? Explain each step of the computation before you answer.`;
  return {
    schema: 'qitos.trace',
    version: 1,
    runId: `20261126T1200${String(i).padStart(5, '0')}-run${i}`,
    status: running ? 'running' : 'completed',
    createdAt: new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString(),
    updatedAt: new Date(Date.UTC(2026, 10, 1) + i * 60_000 + 5000).toISOString(),
    agent: {
      name: i % 3 ? 'CalcAgent' : 'ReActAgent',
      module: '/home/user/agents/calc-agent.ts',
      export: 'default',
      sha256: '9510293fbd71cf9990ac147cdd9425ab615b68be764b4476bce8a49ce45778b5',
      config: {},
      ...(i % 5 === 0 ? { variant: `temperature 0.${i % 10}` } : {}),
    },
    task: { id: `task-${i}`, objective, inputs: {}, resources: {}, budget: {}, successCriteria: [], metadata: {} },
    model: { id: i % 2 ? 'openai:gpt-4o-mini' : 'anthropic:claude-haiku', params: {} },
    parser: 'json',
    tools: ['calc'],
    policies: [],
    budget: { maxSteps: 10 },
    env: { name: 'null' },
    seed: null,
    hashes: { config: '1f61c09de0fef931', systemPrompt: 'c3854b27c6fb42da', toolSchemas: '9e1b64ef51051ebd' },
    config: { model: { id: i % 2 ? 'openai:gpt-4o-mini' : 'anthropic:claude-haiku' } },
    parent: null,
    initialState: { task: objective, step: 0, maxSteps: 10, finalResult: null, stopReason: null, messages: [] },
    summary: running
      ? null
      : {
          stopReason: i % 7 ? 'final' : 'budget_steps',
          message: 'the agent gave a final answer',
          finalResult: String(i * 23),
          steps: 1 + (i % 9),
          usage: {
            tokens: { input: 280 + i, output: 32, reasoning: 7, cache: { read: 0, write: 0 } },
            cost: 0.0027,
            modelCalls: 2,
          },
          durationMs: 140 + (i % 1000),
          failures: [],
          policyEvents: {},
        },
    files: { 'events.jsonl': 'e8b5'.repeat(16), 'steps.jsonl': 'eac8'.repeat(16) },
    signature: '3b0d'.repeat(16),
    ...extra,
  };
}

const dir = mkdtempSync(join(tmpdir(), 'qitos-bench-board-'));
const root = join(dir, 'traces');
const cacheDir = join(dir, 'cache');
const step = JSON.stringify({
  step: 1,
  tokens: { input: 100, output: 10, reasoning: 0, cache: { read: 0, write: 0 } },
  cost: 0.001,
});
for (let i = 0; i < RUNS; i++) {
  const run = join(root, `run-${String(i).padStart(5, '0')}`);
  mkdirSync(run, { recursive: true });
  writeFileSync(join(run, 'manifest.json'), JSON.stringify(manifest(i), null, 2));
  if (i < RUNNING) writeFileSync(join(run, 'steps.jsonl'), `${step}\n`.repeat(3));
}

/** Median ms of `rounds` runs of `fn` (each after `before`, untimed). */
async function median(
  fn: () => Promise<unknown> | unknown,
  before: () => void = () => {},
  rounds = 3,
): Promise<number> {
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    before();
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(rounds / 2)];
}

try {
  const baseline = await median(() => listRuns(root));
  // the floor of any listing that notices changed manifests: list the folder and stat each manifest, nothing else
  const floor = await median(() => {
    for (const name of readdirSync(root)) statSync(join(root, name, 'manifest.json'), { throwIfNoEntry: false });
  });
  const cold = await median(() => new BoardIndex([root]).refresh());
  const coldCache = await median(
    () => new BoardIndex([root], { cacheDir }).refresh(),
    () => rmSync(cacheDir, { recursive: true, force: true }),
  );
  const warm = await median(() => new BoardIndex([root], { cacheDir }).refresh());
  const live = new BoardIndex([root], { cacheDir });
  await live.refresh();
  if (live.rows().length !== RUNS) throw new Error(`listed ${live.rows().length} runs, expected ${RUNS}`);
  const idle = await median(() => live.refresh());
  let round = 0;
  const changed = await median(
    () => live.refresh(),
    () => {
      round++;
      for (let i = 0; i < 100; i++) {
        const n = RUNNING + ((round * 100 + i) % (RUNS - RUNNING));
        const file = join(root, `run-${String(n).padStart(5, '0')}`, 'manifest.json');
        writeFileSync(file, JSON.stringify(manifest(n, { updatedAt: `round ${round}` }), null, 2));
      }
    },
  );
  const app = createBoardApp({ index: live, refreshMs: 60_000 });
  let bytes = 0;
  const http = await median(async () => {
    const res = await app.request('/api/runs');
    bytes = (await res.text()).length;
  });
  const ms = (v: number) => `${v.toFixed(0)} ms`;
  console.log(`10,000 runs: cold ${ms(cold)}, cold + cache ${ms(coldCache)}, warm ${ms(warm)}, refresh ${ms(idle)}`);
  const section = `## Runs board

\`npm run bench:board\`: \`qitos board\` listing ${RUNS.toLocaleString('en-US')} runs (2 KB manifests like a real run's;
${RUNNING} running, their steps.jsonl followed), median of 3 rounds, Node ${process.version}, on the shared 2-core
machine (${new Date().toISOString().slice(0, 10)}, load average ${loadavg()[0].toFixed(1)}: other work shared the cores, so
compare each row with the floor row of the same run rather than with figures of another day). Goal: under a second.

| listing 10,000 runs | time |
|---|---|
| cold: a new index reads every manifest (no cache) | ${ms(cold)} |
| cold + cache: the same, writing the cache file (first start) | ${ms(coldCache)} |
| warm: a new index with the cache file (a later start: stats every manifest, reads none) | ${ms(warm)} |
| refresh, nothing changed (one poll of a page) | ${ms(idle)} |
| refresh, 100 manifests changed | ${ms(changed)} |
| GET /api/runs, the whole listing (${(bytes / 1e6).toFixed(1)} MB of JSON) | ${ms(http)} |
| floor: list the folder and stat each manifest.json, nothing else | ${ms(floor)} |
| baseline: \`qitos runs\`' listRuns, same folder | ${ms(baseline)} |

The OS file cache is warm in every round (as it is after the runs were written). The page searches and sorts the
rows in the browser and puts the first 200 that match in the table.
`;
  writePerformanceSection(section);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
