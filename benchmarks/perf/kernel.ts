/**
 * Kernel speed: steps per second of a no-op agent on three paths, trace size per step, peak RSS.
 *   (a) decide() returns a Decision      target >= 50,000 steps/s
 *   (b) model path: ScriptedModel + JSON  target >= 25,000 steps/s
 *   (c) (b) with the JSONL trace on       target >= 10,000 steps/s, <= 1.5 KB/step
 *   (d) (a) with the step debugger on and a breakpoint that never matches: target (a) within noise
 *   RSS: 100,000 steps with the trace on  target <= 150 MB peak, flat: the last quarter's mean within 10% of the
 *                                         first quarter's (sampled every 1,000 steps)
 * Run: npm run bench:kernel [-- --steps 5000 --rss-steps 100000]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { ScriptedModel } from '../../src/models/index.js';
import { jsonParser } from '../../src/kit/parsers/index.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const STEPS = arg('steps', 5000);
const RSS_STEPS = arg('rss-steps', 100_000);

const noop = defineTool({ id: 'noop', description: 'does nothing', parameters: z.object({}), execute: () => 'ok' });

class DirectAgent extends AgentModule<State> {
  initState(task: Task) {
    return baseState(task, 10_000_000);
  }
  override decide(): Decision {
    return decide.call('noop');
  }
}

/** Model path agent that keeps no conversation: each step's prompt is built fresh (qitos-style). */
class ModelAgent extends AgentModule<State> {
  initState(task: Task) {
    return baseState(task, 10_000_000);
  }
  override prepare(): string | undefined {
    return undefined;
  }
  override reduce(state: State): State {
    // A qitos-style experiment keeps its own state, not the conversation: memory stays flat as steps grow.
    if (this.config.keepHistory) return state;
    return { ...state, messages: [] };
  }
}

async function measure(label: string, steps: number, make: () => Engine<State>): Promise<number> {
  const engine = make();
  const t0 = performance.now();
  const r = await engine.run({ id: 't', objective: 'noop', budget: { maxSteps: steps } });
  const s = (performance.now() - t0) / 1000;
  if (r.steps !== steps || r.stopReason !== 'budget_steps')
    throw new Error(`${label}: ran ${r.steps} steps, stop ${r.stopReason}: ${r.stopMessage}`);
  return steps / s;
}

function scripted() {
  return new ScriptedModel(['{"action":{"name":"noop","args":{}}}'], { loop: true, recordRequests: false });
}

const root = mkdtempSync(join(tmpdir(), 'qitos-bench-'));
try {
  // Peak RSS over a long traced run, sampled every 1,000 steps (a coarser sampling misses the GC sawtooth's peaks).
  const samples: Array<[number, number]> = [];
  let peak = 0;
  const hook = (ev: { type: string; step?: number }) => {
    if (ev.type === 'phase_start' && (ev as { phase?: string }).phase === 'observe' && ev.step! % 1_000 === 0) {
      const rss = process.memoryUsage().rss / 1e6;
      peak = Math.max(peak, rss);
      samples.push([ev.step!, Math.round(rss)]);
    }
  };
  const t0 = performance.now();
  const long = await new Engine({
    agent: new ModelAgent({ tools: [noop], model: scripted(), parser: jsonParser() }),
    trace: { dir: root },
    hooks: [hook],
  }).run({ id: 't', objective: 'noop', budget: { maxSteps: RSS_STEPS } });
  const longRate = long.steps / ((performance.now() - t0) / 1000);
  peak = Math.max(peak, process.memoryUsage().rss / 1e6);

  const best = async (label: string, make: () => Engine<State>) => {
    await measure(label, Math.min(STEPS, 2000), make); // warm-up
    const runs = [
      await measure(label, STEPS, make),
      await measure(label, STEPS, make),
      await measure(label, STEPS, make),
    ];
    return Math.max(...runs);
  };
  const a = await best('a', () => new Engine({ agent: new DirectAgent({ tools: [noop] }), trace: false }));
  // The debugger's cost when no breakpoint matches: the gate checks its breakpoints at every phase edge. (a) and
  // (d) run in alternating rounds, so a load that comes and goes on the shared machine hits both alike.
  const debugged = () =>
    new Engine({
      agent: new DirectAgent({ tools: [noop] }),
      trace: false,
      breakpoints: [
        { on: 'tool', tool: 'never' },
        { on: 'step', step: 10_000_000 },
      ],
      onBreak: () => {
        throw new Error('no breakpoint should match');
      },
    });
  const plain = () => new Engine({ agent: new DirectAgent({ tools: [noop] }), trace: false });
  await measure('d', Math.min(STEPS, 2000), debugged);
  const rounds: Array<[number, number]> = [];
  for (let i = 0; i < 7; i++) rounds.push([await measure('a', STEPS, plain), await measure('d', STEPS, debugged)]);
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
  const aMedian = median(rounds.map((r) => r[0]));
  const d = median(rounds.map((r) => r[1]));
  const b = await best(
    'b',
    () =>
      new Engine({ agent: new ModelAgent({ tools: [noop], model: scripted(), parser: jsonParser() }), trace: false }),
  );
  let lastDir = '';
  const c = await best('c', () => {
    const e = new Engine({
      agent: new ModelAgent({ tools: [noop], model: scripted(), parser: jsonParser() }),
      trace: { dir: root },
    });
    return e;
  });
  // trace size of one (c) run, and of one whose agent keeps the whole conversation in state
  const traceBytes = async (keepHistory: boolean) => {
    const e = new Engine({
      agent: new ModelAgent({ tools: [noop], model: scripted(), parser: jsonParser(), config: { keepHistory } }),
      trace: { dir: root },
    });
    const r = await e.run({ id: 't', objective: 'noop', budget: { maxSteps: STEPS } });
    lastDir = r.traceDir!;
    return ['manifest.json', 'events.jsonl', 'steps.jsonl'].reduce((n, f) => n + statSync(join(lastDir, f)).size, 0);
  };
  const bytes = await traceBytes(false);
  const bytesHistory = await traceBytes(true);

  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  console.log(`kernel benchmark (${STEPS} steps, best of 3, node ${process.version}, ${process.arch})`);
  console.log(`(a) decide() returns a Decision     ${fmt(a).padStart(8)} steps/s   target >= 50,000`);
  console.log(`(b) model path, ScriptedModel+JSON  ${fmt(b).padStart(8)} steps/s   target >= 25,000`);
  console.log(`(c) (b) + JSONL trace               ${fmt(c).padStart(8)} steps/s   target >= 10,000`);
  console.log(
    `(d) (a) + debugger, no break matches ${fmt(d).padStart(8)} steps/s   (a) in the same 7 ` +
      `alternating rounds: ${fmt(aMedian)} steps/s ` +
      `(medians): ${(1e6 / d - 1e6 / aMedian).toFixed(2)} µs/step`,
  );
  console.log(`    trace bytes per step            ${fmt(bytes / STEPS).padStart(8)} B         target <= 1,500`);
  console.log(
    `    ... agent keeping the conversation ${fmt(bytesHistory / STEPS).padStart(5)} B        ` +
      ` (the assistant message is part of the state diff)`,
  );
  const quarter = (q: number) => {
    const part = samples.filter(([s]) => s > (q * RSS_STEPS) / 4 && s <= ((q + 1) * RSS_STEPS) / 4).map(([, m]) => m);
    return part.reduce((n, m) => n + m, 0) / Math.max(1, part.length);
  };
  const drift = quarter(3) / quarter(0) - 1;
  console.log(`RSS ${fmt(RSS_STEPS)} traced steps: peak ${fmt(peak)} MB (target <= 150), ${fmt(longRate)} steps/s`);
  console.log(
    `    mean RSS by quarter: ${[0, 1, 2, 3].map((q) => `${fmt(quarter(q))} MB`).join(', ')}; ` +
      `last vs first ${drift >= 0 ? '+' : ''}${(drift * 100).toFixed(1)}% (target within 10%)`,
  );
  console.log(
    `    RSS every 10,000 steps: ${samples
      .filter(([s]) => s % 10_000 === 0)
      .map(([s, m]) => `${s / 1000}k:${m}MB`)
      .join(' ')}`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
