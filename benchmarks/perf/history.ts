/**
 * Does the kernel's per-step cost grow with history? A ReActAgent (ReAct parser, one tool call per step) on a
 * looping ScriptedModel (recordRequests off, trace off) keeps the whole conversation in state. We time each step
 * (between consecutive tool calls) and compare the mean step time around 1,000 steps of history with the mean
 * around 5,000. Target: ratio <= 1.25.
 * Run: npm run bench:history [-- --window 500 --runs 5]
 */
import { z } from 'zod';
import { Engine, defineTool } from '../../src/index.js';
import { ReActAgent } from '../../src/kit/agents/index.js';
import { ScriptedModel } from '../../src/models/index.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const WINDOW = arg('window', 500);
const RUNS = arg('runs', 5);
const AT = [1000, 5000];

async function run(): Promise<{ means: number[]; medians: number[]; total: number; steps: number }> {
  const stamps: number[] = [];
  const add = defineTool({
    id: 'add',
    description: 'Adds two numbers.',
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }) => {
      stamps.push(performance.now());
      return String(a + b);
    },
  });
  const model = new ScriptedModel(['Thought: keep adding\nAction: add(a=1, b=2)'], {
    loop: true,
    recordRequests: false,
  });
  const steps = AT[AT.length - 1] + WINDOW + 1;
  const agent = new ReActAgent({ model, tools: [add], maxSteps: steps });
  const t0 = performance.now();
  const r = await new Engine({ agent, trace: false }).run('Add 1 and 2, forever.');
  const total = performance.now() - t0;
  if (r.stopReason !== 'budget_steps' || stamps.length !== steps)
    throw new Error(`run ended early: ${r.stopReason} ${r.stopMessage}`);
  const means: number[] = [];
  const medians: number[] = [];
  for (const at of AT) {
    const d: number[] = [];
    for (let i = at; i < at + WINDOW; i++) d.push(stamps[i] - stamps[i - 1]);
    means.push(d.reduce((s, x) => s + x, 0) / d.length);
    d.sort((x, y) => x - y);
    medians.push(d[d.length >> 1]);
  }
  return { means, medians, total, steps };
}

const results = [];
await run(); // warm-up (JIT)
for (let i = 0; i < RUNS; i++) results.push(await run());
const fmt = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;
for (const [i, r] of results.entries()) {
  console.log(
    `run ${i + 1}: mean step ${fmt(r.means[0])} at ${AT[0]}, ${fmt(r.means[1])} at ${AT[1]} ` +
      `(ratio ${(r.means[1] / r.means[0]).toFixed(2)}); ` +
      `median ${fmt(r.medians[0])} / ${fmt(r.medians[1])} ` +
      `(ratio ${(r.medians[1] / r.medians[0]).toFixed(2)}); ${Math.round(r.steps / (r.total / 1000))} ` +
      `steps/s overall`,
  );
}
const ratios = results.map((r) => r.means[1] / r.means[0]).sort((a, b) => a - b);
const medianRatios = results.map((r) => r.medians[1] / r.medians[0]).sort((a, b) => a - b);
console.log(
  `mean-step ratio ${AT[1]}/${AT[0]}: median of ` +
    `runs ${ratios[ratios.length >> 1].toFixed(2)} (target <= 1.25); median-step ` +
    `ratio ${medianRatios[medianRatios.length >> 1].toFixed(2)}`,
);
