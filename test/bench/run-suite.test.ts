import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ModelError } from '../../src/core/index.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import { readManifest } from '../../src/trace/index.js';
import fc from 'fast-check';
import { AgentModule } from '../../src/engine/agent-module.js';
import { baseState, decide, type State, type Task } from '../../src/core/index.js';
import {
  custom,
  defineSuite,
  exactMatch,
  mergeRuns,
  runSuite,
  Summary,
  toBenchAgent,
  type BenchProgress,
} from '../../src/bench/index.js';
import { inShard, taskHash } from '../../src/bench/shard.js';
import { readResults } from '../../src/bench/results-file.js';
import { doomLoop } from '../../src/kit/policies/index.js';
import { calculateTool } from '../../src/kit/tools/index.js';
import { ModelAgent, OracleAgent, numberTasks, tempDirs } from '../helpers/bench-fixtures.js';

const dirs = tempDirs();
afterEach(dirs.cleanup);
const out = dirs.make;
const suiteOf = (n: number, extra = {}) =>
  defineSuite({ name: 'numbers', tasks: numberTasks(n, extra), scorer: exactMatch() });
const oracle = () => new OracleAgent();

describe('runSuite', () => {
  it('runs every task and epoch, one trace each, and writes results, summary and report', async () => {
    const dir = out();
    const r = await runSuite({ suite: suiteOf(6), agentFactory: oracle, epochs: 2, concurrency: 3, outDir: dir });
    expect(r.ran).toBe(12);
    const lines = readResults(join(dir, 'results.jsonl')).results;
    expect(lines).toHaveLength(12);
    const t2 = lines.find((l) => l.taskId === 't002' && l.epoch === 2)!;
    expect(t2).toMatchObject({
      pass: true,
      score: 1,
      stopReason: 'final',
      steps: 1,
      answer: '3',
      error: null,
      traceDir: 'traces/t002.e2',
    });
    expect(lines.find((l) => l.taskId === 't001')!).toMatchObject({
      pass: false,
      explanation: expect.stringContaining('does not equal'),
    });
    const manifest = await readManifest(join(dir, t2.traceDir!));
    expect(manifest).toMatchObject({
      status: 'completed',
      runId: 't002.e2',
      summary: { stopReason: 'final', finalResult: '3' },
    });
    expect(readdirSync(join(dir, 'traces'))).toHaveLength(12);

    const summary = Summary.parse(JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')));
    expect(summary).toMatchObject({
      suite: 'numbers',
      trials: 12,
      expectedTrials: 12,
      complete: true,
      stopReasons: { final: 12 },
    });
    expect(summary.passRate).toMatchObject({ passed: 6, total: 12, rate: 0.5 });
    expect(summary.passAtK).toEqual({ 1: 0.5, 2: 0.5 });
    expect(summary.failed.map((f) => f.taskId)).toEqual(['t001', 't001', 't003', 't003', 't005', 't005']);
    const report = readFileSync(join(dir, 'report.md'), 'utf8');
    expect(report).toContain('Pass rate: 50.0%');
    expect(report).toContain('[trace](traces/t001.e1)');
  });

  it('runs trials concurrently, never more than the concurrency', async () => {
    let inFlight = 0;
    let peak = 0;
    const suite = defineSuite({
      name: 'slow',
      tasks: numberTasks(8, { delayMs: 30 }),
      scorer: custom(() => true),
    });
    await runSuite({
      suite,
      outDir: out(),
      concurrency: 3,
      agentFactory: () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        const a = new OracleAgent();
        const decide = a.decide.bind(a);
        a.decide = async (s) => {
          const d = await decide(s);
          inFlight--;
          return d;
        };
        return a;
      },
    });
    expect(peak).toBe(3);
  });

  it('an aborted run keeps whole lines only, records no in-flight trial, and resume finishes exactly the rest', async () => {
    const dir = out();
    const suite = suiteOf(10, { delayMs: 15 });
    const controller = new AbortController();
    const first = await runSuite({
      suite,
      agentFactory: oracle,
      concurrency: 4,
      outDir: dir,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.done === 3) controller.abort();
      },
    });
    expect(first.interrupted).toBe(true);
    const text = readFileSync(join(dir, 'results.jsonl'), 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const recorded = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(recorded).toHaveLength(3); // the in-flight trials were aborted, not recorded
    expect(first.summary).toMatchObject({ complete: false, interrupted: true, missing: 7 });
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toContain('run again with --resume');

    await expect(runSuite({ suite, agentFactory: oracle, outDir: dir })).rejects.toThrow(
      /already has 3 results: pass resume/,
    );
    const progress: BenchProgress[] = [];
    const second = await runSuite({
      suite,
      agentFactory: oracle,
      concurrency: 4,
      outDir: dir,
      resume: true,
      onProgress: (p) => progress.push(p),
    });
    expect(second).toMatchObject({ ran: 7, skipped: 3, interrupted: false });
    expect(progress[0]).toMatchObject({ done: 3, total: 10, skipped: 3 });
    expect(progress.at(-1)).toMatchObject({ done: 10, total: 10 });
    const all = readResults(join(dir, 'results.jsonl')).results;
    expect(all.map((r) => r.taskId).sort()).toEqual(numberTasks(10).map((t) => t.id));
    expect(second.summary).toMatchObject({ complete: true, trials: 10 });
    // Every trace folder is a finished run (interrupted attempts were replaced when rerun).
    for (const r of all) expect((await readManifest(join(dir, r.traceDir!))).status).toBe('completed');

    const third = await runSuite({ suite, agentFactory: oracle, outDir: dir, resume: true });
    expect(third.ran).toBe(0);
  });

  it('resume drops a last line cut mid-write and reruns that trial', async () => {
    const dir = out();
    const suite = suiteOf(3);
    await runSuite({ suite, agentFactory: oracle, outDir: dir });
    const file = join(dir, 'results.jsonl');
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    writeFileSync(file, lines.slice(0, 2).join('\n') + '\n' + lines[2].slice(0, 40));
    const r = await runSuite({ suite, agentFactory: oracle, outDir: dir, resume: true });
    expect(r.ran).toBe(1);
    expect(r.summary.warnings.join()).toMatch(/incomplete last line/);
    expect(readResults(file).results).toHaveLength(3);
  });

  it('resume keeps the epochs the run was started with, and --epochs raised adds the new epochs', async () => {
    const dir = out();
    const suite = suiteOf(4, { delayMs: 10 });
    const controller = new AbortController();
    await runSuite({
      suite,
      agentFactory: oracle,
      epochs: 3,
      concurrency: 2,
      outDir: dir,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.done === 2) controller.abort();
      },
    });
    // Resumed without epochs: still a 3-epoch run (not a "complete" 1-epoch one).
    const resumed = await runSuite({ suite, agentFactory: oracle, outDir: dir, resume: true });
    expect(resumed.summary).toMatchObject({ epochs: 3, trials: 12, expectedTrials: 12, complete: true });
    expect(resumed.summary.passAtK[3]).toBe(0.5);
    const more = await runSuite({ suite, agentFactory: oracle, outDir: dir, resume: true, epochs: 4 });
    expect(more).toMatchObject({ ran: 4, skipped: 12, summary: { epochs: 4, trials: 16, complete: true } });
  });

  it('refuses to resume a folder run with another model or agent', async () => {
    const dir = out();
    const m = (id: string) => new ScriptedModel(['{"final_answer": "1"}'], { loop: true, id });
    await runSuite({
      suite: suiteOf(2),
      outDir: dir,
      model: m('scripted:a'),
      agentFactory: ({ model }) => new ModelAgent({ model }),
    });
    await expect(
      runSuite({
        suite: suiteOf(2),
        outDir: dir,
        resume: true,
        model: m('scripted:b'),
        agentFactory: ({ model }) => new ModelAgent({ model }),
      }),
    ).rejects.toThrow(/cannot resume: the output folder holds a run with model scripted:a, not scripted:b/);
    await expect(
      runSuite({
        suite: suiteOf(2),
        outDir: dir,
        resume: true,
        model: m('scripted:a'),
        agentLabel: 'other.ts',
        agentFactory: ({ model }) => new ModelAgent({ model }),
      }),
    ).rejects.toThrow(/cannot resume: the output folder holds a run of agent \(none recorded\), not other.ts/);
  });

  it('records the agent source and the given config in every trace, and nothing else as config', async () => {
    const dir = out();
    const r = await runSuite({
      suite: suiteOf(1),
      outDir: dir,
      agentFactory: oracle,
      agentLabel: 'agents/oracle.ts',
      agentExport: 'OracleAgent',
      traceConfig: { engine: { maxSteps: 3 } },
    });
    const m = await readManifest(join(dir, r.results[0].traceDir!));
    expect(m.agent).toMatchObject({ module: 'agents/oracle.ts', export: 'OracleAgent' });
    expect(m.config).toEqual({ engine: { maxSteps: 3 } });
    const bare = out();
    const r2 = await runSuite({ suite: suiteOf(1), outDir: bare, agentFactory: oracle });
    expect((await readManifest(join(bare, r2.results[0].traceDir!))).config).toBeUndefined();
  });

  it('a doom-loop stop is scored and counted in the stop-reason histogram and the report', async () => {
    class Looper extends AgentModule<State> {
      constructor() {
        super({ tools: [calculateTool()] });
      }
      initState(task: Task): State {
        return baseState(task, 20);
      }
      override decide(): ReturnType<typeof decide.call> {
        return decide.call('calculate', { expression: '1 + 1' });
      }
    }
    const dir = out();
    const r = await runSuite({
      suite: suiteOf(3),
      outDir: dir,
      agentFactory: ({ task }) =>
        task.id === 't000' ? { agent: new Looper(), policies: [doomLoop()] } : new OracleAgent(),
    });
    expect(r.results.find((l) => l.taskId === 't000')).toMatchObject({
      stopReason: 'doom_loop',
      pass: false,
      error: null,
    });
    expect(r.summary.stopReasons).toEqual({ doom_loop: 1, final: 2 });
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toContain('| doom_loop | 1 |');
  });

  it('accepts agents built from another copy of AgentModule (duck-typed), and names what a factory returned otherwise', () => {
    const foreign = { initState: () => ({}), decide: () => undefined, reduce: () => ({}) };
    expect(toBenchAgent(foreign).agent).toBe(foreign);
    expect(toBenchAgent({ agent: foreign }).agent).toBe(foreign);
    expect(() => toBenchAgent({ model: 1 })).toThrow(/returned an object with keys model; expected an AgentModule/);
    expect(() => toBenchAgent(undefined)).toThrow(/returned undefined/);
  });

  it('refuses to resume another suite or shard into the same folder', async () => {
    const dir = out();
    await runSuite({ suite: suiteOf(2), agentFactory: oracle, outDir: dir, shard: '0/1' });
    const other = defineSuite({ name: 'other', tasks: numberTasks(2), scorer: exactMatch() });
    await expect(runSuite({ suite: other, agentFactory: oracle, outDir: dir, resume: true })).rejects.toThrow(
      /suite "numbers", not "other"/,
    );
    await expect(
      runSuite({ suite: suiteOf(2), agentFactory: oracle, outDir: dir, resume: true, shard: '1/2' }),
    ).rejects.toThrow(/shard 0\/1, not 1\/2/);
  });

  it('a scorer that throws marks that task as a scoring error and the run goes on', async () => {
    const dir = out();
    const suite = defineSuite({
      name: 'flaky-scorer',
      tasks: numberTasks(4),
      scorer: custom(({ task }) => {
        if (task.id === 't002') throw new Error('judge unavailable');
        return true;
      }, 'picky'),
    });
    const r = await runSuite({ suite, agentFactory: oracle, outDir: dir });
    const bad = r.results.find((l) => l.taskId === 't002')!;
    expect(bad).toMatchObject({
      pass: false,
      score: 0,
      errorKind: 'scorer',
      error: 'scorer picky failed: judge unavailable',
    });
    expect(r.results.filter((l) => l.pass)).toHaveLength(3);
    expect(r.summary.errors).toMatchObject({ scorer: 1, run: 0 });
  });

  it('a scorer returning something other than a Score is a scoring error naming what came back', async () => {
    const suite = defineSuite({
      name: 'bad-score',
      tasks: numberTasks(1),
      scorer: { name: 'wrong', score: () => ({ score: 2, pass: true, explanation: '' }) },
    });
    const r = await runSuite({ suite, agentFactory: oracle, outDir: out() });
    expect(r.results[0].error).toMatch(/scorer wrong failed: returned \{"score":2/);
  });

  it('a model that fails for every task ends with a clear summary, not a hang', async () => {
    const dir = out();
    const failing = new ScriptedModel([{ error: new ModelError('server', 'HTTP 503 upstream unavailable') }], {
      loop: true,
      id: 'scripted:down',
    });
    const t0 = Date.now();
    const r = await runSuite({
      suite: suiteOf(5),
      agentFactory: ({ model }) => new ModelAgent({ model }),
      model: failing,
      outDir: dir,
      concurrency: 2,
    });
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(r.results).toHaveLength(5);
    for (const l of r.results)
      expect(l).toMatchObject({
        pass: false,
        stopReason: 'unrecoverable_error',
        errorKind: 'run',
        error: expect.stringContaining('HTTP 503'),
      });
    expect(r.summary).toMatchObject({
      complete: true,
      passRate: { passed: 0, total: 5 },
      stopReasons: { unrecoverable_error: 5 },
      errors: { run: 5 },
    });
    expect(r.summary.errors.samples).toHaveLength(1);
    const report = readFileSync(join(dir, 'report.md'), 'utf8');
    expect(report).toContain('Every trial ended in an error');
    expect(report).toContain('HTTP 503 upstream unavailable');
  });

  it('an agent factory that throws is recorded as a setup error for that task', async () => {
    const r = await runSuite({
      suite: suiteOf(3),
      outDir: out(),
      agentFactory: ({ task }) => {
        if (task.id === 't001') throw new Error('missing API key');
        return new OracleAgent();
      },
    });
    expect(r.results.find((l) => l.taskId === 't001')).toMatchObject({
      errorKind: 'setup',
      error: 'agent setup failed: missing API key',
      traceDir: null,
      steps: 0,
    });
    expect(r.summary.errors.setup).toBe(1);
  });

  it('gives the scorer the env the run acted in', async () => {
    const { MemoryEnv } = await import('../../src/envs/memory-env.js');
    const suite = defineSuite({
      name: 'env-check',
      tasks: [{ id: 'e1', objective: 'x' }],
      scorer: custom(({ env }) => (env as InstanceType<typeof MemoryEnv>).snapshot()['a.txt'] === 'hello'),
    });
    const r = await runSuite({
      suite,
      outDir: out(),
      agentFactory: () => ({ agent: new OracleAgent(), env: new MemoryEnv({ files: { 'a.txt': 'hello' } }) }),
    });
    expect(r.results[0].pass).toBe(true);
  });

  it('spaces model requests by the rate limit across concurrent trials', async () => {
    const model = new ScriptedModel(['{"final_answer": "1"}'], { loop: true });
    const t0 = performance.now();
    await runSuite({
      suite: suiteOf(6),
      outDir: out(),
      concurrency: 6,
      model,
      rateLimit: { perSecond: 40 },
      agentFactory: ({ model: m }) => new ModelAgent({ model: m }),
    });
    // 6 requests at 40/s: the last starts >= 5 * 25 ms after the first.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(120);
  });
});

describe('shards and merge', () => {
  it('n shards cover every task exactly once and merge into one complete summary', async () => {
    const suite = suiteOf(20);
    const dirs = [out(), out(), out()];
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await runSuite({ suite, agentFactory: oracle, outDir: dirs[i], shard: `${i}/3`, epochs: 2 });
      ids.push(...new Set(r.results.map((l) => l.taskId)));
      for (const l of r.results) expect(inShard(l.taskId, { index: i, count: 3 })).toBe(true);
    }
    expect(ids.sort()).toEqual(numberTasks(20).map((t) => t.id));
    const merged = out();
    const m = mergeRuns(dirs, merged);
    expect(m.summary).toMatchObject({ trials: 40, complete: true, shard: null, passRate: { passed: 20, total: 40 } });
    // Trace links point back into the shard folders.
    const line = m.results[0];
    expect(existsSync(join(merged, line.traceDir!, 'manifest.json'))).toBe(true);
    expect(readFileSync(join(merged, 'report.md'), 'utf8')).toContain('Pass rate: 50.0%');
  });

  it('merge keeps the shared settings, ignores where the module lay, and refuses shards run with other settings', async () => {
    const suite = suiteOf(6);
    const settings = (path: string, steps: number) => ({
      module: { path, sha256: 'abc' },
      engine: { maxSteps: steps },
    });
    const dirs = [out(), out()];
    await runSuite({
      suite,
      agentFactory: oracle,
      outDir: dirs[0],
      shard: '0/2',
      settings: settings('/node-a/agent.ts', 5),
    });
    await runSuite({
      suite,
      agentFactory: oracle,
      outDir: dirs[1],
      shard: '1/2',
      settings: settings('/node-b/agent.ts', 5),
    });
    const merged = out();
    mergeRuns(dirs, merged);
    expect(JSON.parse(readFileSync(join(merged, 'run.json'), 'utf8')).config).toEqual(settings('/node-a/agent.ts', 5));
    const other = out();
    await runSuite({
      suite,
      agentFactory: oracle,
      outDir: other,
      shard: '1/2',
      settings: settings('/node-a/agent.ts', 6),
    });
    expect(() => mergeRuns([dirs[0], other], out())).toThrow(
      /cannot merge runs with different settings: .* engine\.maxSteps: 5 -> 6$/,
    );
  });

  it('shards partition any set of ids, whatever the order, by the SHA-256 of the id (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 9 }),
        (ids, n) => {
          const owners = ids.map((id) =>
            Array.from({ length: n }, (_, i) => i).filter((i) => inShard(id, { index: i, count: n })),
          );
          for (const o of owners) expect(o).toHaveLength(1);
          // Stable: the owner depends only on the id and n.
          const reversed = [...ids].reverse().map((id) => taskHash(id) % n);
          expect(reversed.reverse()).toEqual(owners.map((o) => o[0]));
        },
      ),
      { numRuns: 100 },
    );
    // Fixed values (Python: int.from_bytes(sha256(id.encode()).digest()[:4], 'big')) guard the documented hash, so
    // shards run by different versions or machines still agree.
    expect(taskHash('arith-001')).toBe(3488477432);
    expect(taskHash('τ-1')).toBe(1851815390);
  });

  it('refuses a merge with a shard missing, a shard given twice, or runs of different suites', async () => {
    const suite = suiteOf(12);
    const a = out();
    const b = out();
    await runSuite({ suite, agentFactory: oracle, outDir: a, shard: '0/2' });
    await runSuite({ suite, agentFactory: oracle, outDir: b, shard: '1/2' });
    expect(() => mergeRuns([a], out())).toThrow(/are missing: .*belong to no given shard/);
    expect(() => mergeRuns([a, b, a], out())).toThrow(/recorded more than once: .*was a shard given twice/);
    const c = out();
    await runSuite({
      suite: defineSuite({ name: 'other', tasks: numberTasks(12), scorer: exactMatch() }),
      agentFactory: oracle,
      outDir: c,
    });
    expect(() => mergeRuns([a, c], out())).toThrow(/different suites/);
    expect(() => mergeRuns([a, b], a)).toThrow(/is one of the runs being merged/);
    expect(() => mergeRuns([a, b], c)).toThrow(/holds a bench run \(not a merge\); choose another --out/);
    const m = out();
    mergeRuns([a, b], m);
    expect(mergeRuns([a, b], m).summary.complete).toBe(true); // merging again into a merge folder is fine
    expect(() => mergeRuns([a], out(), { displayDirs: ['shard-0'] })).toThrow(/missing/);
    expect(() => mergeRuns([a, a], out(), { displayDirs: ['shard-0', 'again'] })).toThrow(/\(shard-0 and again\)/);
  });

  it('refuses to merge an unfinished shard', async () => {
    const suite = suiteOf(8);
    const a = out();
    const b = out();
    await runSuite({ suite, agentFactory: oracle, outDir: a, shard: '0/2' });
    await runSuite({ suite, agentFactory: oracle, outDir: b, shard: '1/2' });
    const file = join(b, 'results.jsonl');
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    writeFileSync(file, lines.slice(1).join('\n') + '\n');
    expect(() => mergeRuns([a, b], out())).toThrow(/1 task\/epoch pair\(s\).*missing.*unfinished/);
    appendFileSync(file, lines[0] + '\n');
    expect(mergeRuns([a, b], out()).summary.complete).toBe(true);
  });
});
