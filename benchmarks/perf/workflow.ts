/**
 * The workflow layer's cost, side by side with LangGraph.js on the same shapes:
 * - per node: a linear flow of 200 tool nodes against a plain Engine run of 200 steps that call the same tool
 *   (the workflow layer's overhead per node over the kernel's step);
 * - a 100-node linear flow, and a fan-out of 50 branches joined with `all`;
 * each with tracing off and on (qitos), and without and with a MemorySaver checkpointer (LangGraph: its record of
 * every step, what its resume and time travel read). Every node does nothing but update the state.
 * Run: npm run bench:workflow ; with -- --write, records the figures in docs/performance.md `## Workflow`; with
 * -- --trace-dir <dir>, traces go there (default: the OS temp folder). LangGraph.js is installed on demand in
 * benchmarks/peers/langgraph (its own package.json; not a dependency of qitos-ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import {
  AgentModule,
  Engine,
  baseState,
  decide,
  defineTool,
  type Decision,
  type State,
  type Task,
} from '../../src/index.js';
import { WorkflowDefinition, runWorkflow, type WorkflowInput } from '../../src/kit/workflow/index.js';
import { writePerformanceSection } from './performance-doc.js';

const peer = fileURLToPath(new URL('../peers/langgraph/', import.meta.url));
if (!existsSync(join(peer, 'node_modules', '@langchain', 'langgraph'))) {
  console.log('installing LangGraph.js in benchmarks/peers/langgraph ...');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent'], { cwd: peer, stdio: 'inherit' });
}
const lg = (await import(pathToFileURL(join(peer, 'shapes.mjs')).href)) as {
  linear(n: number, checkpoint: boolean): () => Promise<void>;
  fanout(n: number, checkpoint: boolean): () => Promise<void>;
};
const loadAtStart = loadavg()[0].toFixed(1);

const tick = defineTool({ id: 'tick', description: 'Does nothing.', parameters: z.object({}), execute: () => 'ok' });
const linearFlow = (n: number): WorkflowDefinition =>
  WorkflowDefinition.create({
    name: `linear-${n}`,
    nodes: [
      { kind: 'start', id: 'start' },
      ...Array.from({ length: n }, (_, i) => ({
        kind: 'tool' as const,
        id: `n${i}`,
        toolName: 'tick',
        parameters: {},
      })),
      { kind: 'end', id: 'end' },
    ],
    edges: [
      { from: 'start', to: 'n0' },
      ...Array.from({ length: n - 1 }, (_, i) => ({ from: `n${i}`, to: `n${i + 1}` })),
      { from: `n${n - 1}`, to: 'end' },
    ],
  } as WorkflowInput);
const fanoutFlow = (n: number): WorkflowDefinition =>
  WorkflowDefinition.create({
    name: `fanout-${n}`,
    nodes: [
      { kind: 'start', id: 'start' },
      { kind: 'fork', id: 'fan' },
      ...Array.from({ length: n }, (_, i) => ({
        kind: 'tool' as const,
        id: `b${i}`,
        toolName: 'tick',
        parameters: {},
        output: 'r',
      })),
      { kind: 'join', id: 'j', fork: 'fan', output: 'all' },
      { kind: 'end', id: 'end' },
    ],
    edges: [
      { from: 'start', to: 'fan' },
      ...Array.from({ length: n }, (_, i) => [
        { from: 'fan', to: `b${i}` },
        { from: `b${i}`, to: 'j' },
      ]).flat(),
      { from: 'j', to: 'end' },
    ],
  } as WorkflowInput);

/** The kernel's own step with the same tool: the baseline of the per-node overhead. */
class TickAgent extends AgentModule<State> {
  constructor(private readonly steps: number) {
    super({ tools: [tick] });
  }
  initState(task: Task) {
    return baseState(task, this.steps + 1);
  }
  override decide(state: State): Decision {
    return state.step > this.steps ? decide.final('done') : decide.call('tick', {});
  }
}

// --trace-dir <dir>: where the traced runs write (default: the OS temp folder). On a disk, creating a branch's files
// costs the kernel more than the run itself (docs/performance.md, "Round three"); /dev/shm shows the run's own cost.
const traceRootAt = process.argv.indexOf('--trace-dir');
const traceRoot = traceRootAt > 0 ? process.argv[traceRootAt + 1] : tmpdir();
if (!traceRoot || !existsSync(traceRoot)) throw new Error(`--trace-dir: no such folder: ${traceRoot}`);
const dir = await mkdtemp(join(traceRoot, 'qitos-bench-workflow-'));
const traceOf = (on: boolean) => (on ? { dir: join(dir, 'traces') } : (false as const));
/** Best of `rounds` wall times (ms) of `fn`, after one warm-up call. */
async function best(rounds: number, fn: () => Promise<unknown>): Promise<number> {
  await fn();
  let b = Infinity;
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    await fn();
    b = Math.min(b, performance.now() - t0);
  }
  return b;
}
async function completed(p: Promise<{ status: string; reason?: string }>): Promise<void> {
  const r = await p;
  if (r.status !== 'completed') throw new Error(`workflow ended ${r.status}: ${r.reason}`);
}

const PER_NODE = 200;
const lin200 = linearFlow(PER_NODE);
const lin100 = linearFlow(100);
const fan50 = fanoutFlow(50);
const rows: Array<{ shape: string; qitosOff: number; qitosOn: number; lgOff: number; lgOn: number }> = [];
const perNode = {
  plainOff: (await best(5, () => new Engine({ agent: new TickAgent(PER_NODE), trace: false }).run('tick'))) / PER_NODE,
  plainOn:
    (await best(5, () => new Engine({ agent: new TickAgent(PER_NODE), trace: traceOf(true) }).run('tick'))) / PER_NODE,
  flowOff: (await best(5, () => completed(runWorkflow(lin200, { tools: [tick], trace: false })))) / PER_NODE,
  flowOn: (await best(5, () => completed(runWorkflow(lin200, { tools: [tick], trace: traceOf(true) })))) / PER_NODE,
  lgOff: (await best(3, lg.linear(PER_NODE, false))) / PER_NODE,
  lgOn: (await best(3, lg.linear(PER_NODE, true))) / PER_NODE,
};
rows.push({
  shape: '100-node linear flow',
  qitosOff: await best(5, () => completed(runWorkflow(lin100, { tools: [tick], trace: false }))),
  qitosOn: await best(5, () => completed(runWorkflow(lin100, { tools: [tick], trace: traceOf(true) }))),
  lgOff: await best(3, lg.linear(100, false)),
  lgOn: await best(3, lg.linear(100, true)),
});
rows.push({
  shape: 'fan-out of 50 branches + join',
  qitosOff: await best(5, () => completed(runWorkflow(fan50, { tools: [tick], trace: false }))),
  qitosOn: await best(5, () => completed(runWorkflow(fan50, { tools: [tick], trace: traceOf(true) }))),
  lgOff: await best(3, lg.fanout(50, false)),
  lgOn: await best(3, lg.fanout(50, true)),
});
await rm(dir, { recursive: true, force: true });

const f = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;
console.log(
  `per node: plain Engine step ${us(perNode.plainOff)} (traced ${us(perNode.plainOn)}); ` +
    `workflow node ${us(perNode.flowOff)} (traced ${us(perNode.flowOn)}); LangGraph ` +
    `node ${us(perNode.lgOff)} (checkpointed ${us(perNode.lgOn)})`,
);
for (const r of rows)
  console.log(
    `${r.shape}: qitos ${f(r.qitosOff)} ms (traced ${f(r.qitosOn)} ms); LangGraph ${f(r.lgOff)} ms (checkpointed ${f(r.lgOn)} ms)`,
  );

writePerformanceSection(
  [
    '## Workflow',
    '',
    '`npm run bench:workflow` (`benchmarks/perf/workflow.ts`), side by side with LangGraph.js 1.7 on the same shapes',
    '(`benchmarks/peers/langgraph/`, installed on demand). Every node only updates the state: a `tick` tool node in',
    'qitos, a function node in LangGraph. qitos traced = a trace folder per run (and per fork branch: each branch is a',
    'linked child run with its own trace); LangGraph checkpointed = a MemorySaver (in memory, not on disk). Best of 5',
    `(qitos) or 3 (LangGraph) runs after a warm-up. Load average at the start: ${loadAtStart} on the shared 2-core machine.`,
    '',
    '| per node (linear flow of 200) | untraced / no checkpointer | traced / checkpointed |',
    '|---|---|---|',
    `| plain \`Engine\` step calling the same tool (the kernel's floor) | ${us(perNode.plainOff)} | ${us(perNode.plainOn)} |`,
    `| qitos workflow node | ${us(perNode.flowOff)} | ${us(perNode.flowOn)} |`,
    `| LangGraph.js node | ${us(perNode.lgOff)} | ${us(perNode.lgOn)} |`,
    '',
    '| shape | qitos | qitos traced | LangGraph.js | LangGraph.js checkpointed |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) => `| ${r.shape} | ${f(r.qitosOff)} ms | ${f(r.qitosOn)} ms | ${f(r.lgOff)} ms | ${f(r.lgOn)} ms |`,
    ),
    '',
    `The workflow layer costs ${(perNode.flowOff / perNode.plainOff).toFixed(1)}x a plain kernel step per node untraced and`,
    `${(perNode.flowOn / perNode.plainOn).toFixed(1)}x traced: the thread state (variables, per-node records) is part of the run's`,
    'state, so the trace can replay, resume and fork a workflow at any node. A fan-out branch is a whole child run (its own',
    'engine run and, traced, its own trace folder), which is what lets a branch be replayed or resumed on its own.',
    '',
  ].join('\n'),
);
