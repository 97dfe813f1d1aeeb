/**
 * The research kit where it touches the step cost:
 * - memory: `retrieve(query, 5)` over 10,000 records (window, vector with the hashing embedder, markdown notes),
 *   and the cost of an append;
 * - search: a step whose decision has 8 candidates (greedy, beam(4), best-first, tree search), against the same
 *   agent acting on one decision (no search);
 * - critics: a step with the pass-through critic against none (the CRITIQUE phase's own cost).
 * Targets: retrieve at 10k records under 5 ms of CPU; a greedy step under 2x a step on the first of the same 8 candidates;
 * a frontier search step (beam, best-first, tree) under 250 µs; the CRITIQUE phase under 20 µs.
 * Run: npm run bench:research ; with -- --write, records the figures in docs/performance.md `## Research kit`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AgentModule,
  Engine,
  baseState,
  decide,
  type Decision,
  type Memory,
  type MemoryContext,
  type SimpleDecision,
  type State,
  type Task,
} from '../../src/index.js';
import { markdownMemory, vectorMemory, windowMemory } from '../../src/kit/memory/index.js';
import { beamSearch, bestFirstSearch, greedySearch, treeSearch } from '../../src/kit/search/index.js';
import { passThroughCritic } from '../../src/kit/critics/index.js';
import { writePerformanceSection } from './performance-doc.js';

const RECORDS = 10_000;
const loadAtStart = (await import('node:os')).loadavg()[0].toFixed(1);
const ctx: MemoryContext = {
  runId: 'bench',
  step: 1,
  signal: new AbortController().signal,
  callModel: () => Promise.reject(new Error('no model')),
};
const WORDS =
  'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega'.split(
    ' ',
  );
const text = (i: number) =>
  `record ${i}: ${WORDS[i % 24]} ${WORDS[(i * 7) % 24]} ${WORDS[(i * 13) % 24]} value ${i % 97} file src/mod${i % 50}.ts`;

async function memoryRow(name: string, make: () => Memory): Promise<[string, number, number, number]> {
  const m = make();
  await m.reset(ctx);
  const t0 = performance.now();
  for (let i = 0; i < RECORDS; i++) await m.append({ step: i, role: 'note', content: text(i) }, ctx);
  const appendUs = ((performance.now() - t0) * 1000) / RECORDS;
  let best = Infinity;
  let cpu = Infinity;
  for (let round = 0; round < 5; round++) {
    const t1 = performance.now();
    const c1 = process.cpuUsage();
    for (let q = 0; q < 50; q++) await m.retrieve(`${WORDS[q % 24]} value ${q} src/mod${q}.ts`, 5, ctx);
    const c = process.cpuUsage(c1);
    best = Math.min(best, (performance.now() - t1) / 50);
    cpu = Math.min(cpu, (c.user + c.system) / 1000 / 50);
  }
  return [name, appendUs, best, cpu];
}

const dir = await mkdtemp(join(tmpdir(), 'qitos-bench-memory-'));
const memoryRows = [
  await memoryRow('window (size 10,000)', () => windowMemory({ size: RECORDS })),
  await memoryRow('vector (hashing embedder, 512 dims)', () => vectorMemory()),
  await memoryRow('vector, persisted (JSONL append per record)', () => vectorMemory({ path: join(dir, 'v.jsonl') })),
  await memoryRow('markdown notes file', () => markdownMemory({ path: join(dir, 'memory.md') })),
];
await rm(dir, { recursive: true, force: true });

/** 8 candidates per step (a branch), or the first of them (a plain step); final after `steps`. */
class WideAgent extends AgentModule<State> {
  constructor(
    private readonly branch: boolean,
    private readonly steps: number,
  ) {
    super();
  }
  initState(task: Task) {
    return baseState(task, this.steps + 1);
  }
  override decide(state: State): Decision {
    if (state.step > this.steps) return decide.final('done');
    const candidates: SimpleDecision[] = Array.from({ length: 8 }, (_, i) => decide.wait(`candidate ${i}`));
    if (!this.branch) return candidates[0];
    return { mode: 'branch', candidates, scores: candidates.map((_, i) => ((state.step * 31 + i * 17) % 100) / 100) };
  }
}

const STEPS = 2_000;
async function stepUs(make: () => Engine<State>): Promise<number> {
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const engine = make();
    const t0 = performance.now();
    const r = await engine.run('bench');
    if (r.stopReason !== 'final') throw new Error(`bench run ended ${r.stopReason}: ${r.stopMessage}`);
    best = Math.min(best, ((performance.now() - t0) * 1000) / r.steps);
  }
  return best;
}
// Warm-up: the first runs pay for JIT compilation of the loop, whichever variant comes first.
for (const search of [undefined, greedySearch(), bestFirstSearch()])
  await new Engine({
    agent: new WideAgent(true, STEPS),
    ...(search ? { search } : {}),
    critics: [passThroughCritic()],
    trace: false,
  }).run('warm-up');
const plain = await stepUs(() => new Engine({ agent: new WideAgent(false, STEPS), trace: false }));
const searchRows: Array<[string, number]> = [
  ['plain step (one decision, no search)', plain],
  [
    '8 candidates, first (no search)',
    await stepUs(() => new Engine({ agent: new WideAgent(true, STEPS), trace: false })),
  ],
  [
    '8 candidates, greedy',
    await stepUs(() => new Engine({ agent: new WideAgent(true, STEPS), search: greedySearch(), trace: false })),
  ],
  [
    '8 candidates, beam(4)',
    await stepUs(
      () => new Engine({ agent: new WideAgent(true, STEPS), search: beamSearch({ width: 4 }), trace: false }),
    ),
  ],
  [
    '8 candidates, best-first (cap 256)',
    await stepUs(() => new Engine({ agent: new WideAgent(true, STEPS), search: bestFirstSearch(), trace: false })),
  ],
  [
    '8 candidates, tree search (cap 32)',
    await stepUs(() => new Engine({ agent: new WideAgent(true, STEPS), search: treeSearch(), trace: false })),
  ],
];
const critic = await stepUs(
  () => new Engine({ agent: new WideAgent(false, STEPS), critics: [passThroughCritic()], trace: false }),
);

for (const [w, a, r, c] of memoryRows)
  console.log(`${w.padEnd(48)} append ${a.toFixed(1)} µs   retrieve(k=5) ${r.toFixed(3)} ms (CPU ${c.toFixed(3)} ms)`);
for (const [w, us] of searchRows) console.log(`${w.padEnd(48)} ${us.toFixed(1)} µs/step`);
console.log(`${'plain step + pass-through critic'.padEnd(48)} ${critic.toFixed(1)} µs/step`);
const [first, greedy] = [searchRows[1][1], searchRows[2][1]];
const missed = [
  ...memoryRows.filter(([, , , c]) => c > 5).map(([w]) => `retrieve ${w}`),
  ...(greedy > 2 * first ? [`greedy step ${(greedy / first).toFixed(2)}x the first-candidate step`] : []),
  ...searchRows
    .slice(3)
    .filter(([, us]) => us > 250)
    .map(([w]) => w),
  ...(critic - plain > 20 ? [`CRITIQUE phase ${(critic - plain).toFixed(1)} µs`] : []),
];
console.log(missed.length ? `targets MISSED: ${missed.join('; ')}` : 'all targets met');

writePerformanceSection(
  [
    '## Research kit',
    '',
    '`npm run bench:research` (`benchmarks/perf/research-kit.ts`). Memory: 10,000 records appended one by one, then',
    '`retrieve(query, 5)`, mean of 50 queries, best of 5 rounds. Search: an agent whose every step is a branch of 8',
    'candidates (2,000 steps, tracing off, best of 5 runs) against the same agent deciding one of them directly.',
    '',
    '| memory (10,000 records) | append | retrieve (k = 5), wall | retrieve, CPU |',
    '|---|---|---|---|',
    ...memoryRows.map(([w, a, r, c]) => `| ${w} | ${a.toFixed(1)} µs | ${r.toFixed(3)} ms | ${c.toFixed(3)} ms |`),
    '',
    '| step | time per step |',
    '|---|---|',
    ...searchRows.map(([w, us]) => `| ${w} | ${us.toFixed(1)} µs |`),
    `| plain step + pass-through critic (the CRITIQUE phase) | ${critic.toFixed(1)} µs |`,
    '',
    `Load average when this run started: ${loadAtStart} (2 cores: above 2, every process ` +
      `waits for a core; CPU figures are what the wall figures approach on an idle machine).`,
    `Targets: retrieve at 10k records under 5 ms of CPU, a greedy step under 2x the ` +
      `first-candidate step, a frontier search step under 250 µs, the CRITIQUE phase under 20 ` +
      `µs: ${missed.length ? `missed: ${missed.join('; ')}` : 'all met'}.`,
    'A vector retrieval scans every record (the packed matrix of skills retrieval; a query of a few words touches only',
    'its non-zero columns); a persisted vector memory pays one file append per record. A frontier search copies the',
    "state (structuredClone) when it keeps an alternative of the step, so its step cost grows with the state's size.",
    '',
  ].join('\n'),
);
