import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ModelRequest } from '../../src/core/index.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import { loadSuite, runSuite, type BenchAgent, type Suite } from '../../src/bench/index.js';
import { agentFactoryFromModule } from '../../src/bench/bench-agent.js';
import { OracleAgent, tempDirs } from '../helpers/bench-fixtures.js';

const ROOT = join(import.meta.dirname, '../../benchmarks');
const dirs = tempDirs();
afterEach(dirs.cleanup);
const out = dirs.make;
async function factoryOf(suite: Suite) {
  return agentFactoryFromModule(await import(pathToFileURL(suite.agent!).href), suite.agent!);
}
/** All text the model was sent, in order. */
function sentText(req: ModelRequest): string {
  return req.messages
    .map((m) =>
      typeof m.content === 'string'
        ? m.content
        : m.content.map((p) => ('text' in p ? p.text : 'output' in p ? p.output : '')).join('\n'),
    )
    .join('\n');
}

describe('shipped suites', () => {
  it('arithmetic: the offline oracle agent solves every task through the calculate tool', async () => {
    const suite = await loadSuite(join(ROOT, 'arithmetic'));
    expect(suite.tasks.length).toBeGreaterThanOrEqual(20);
    const r = await runSuite({ suite, agentFactory: await factoryOf(suite), outDir: out(), concurrency: 4 });
    expect(r.summary.passRate).toMatchObject({ passed: suite.tasks.length, total: suite.tasks.length });
    expect(r.results.every((l) => l.steps === 2 && l.stopReason === 'final')).toBe(true);
  });

  it('arithmetic: the model path with a scripted model that reads the tool output', async () => {
    const suite = await loadSuite(join(ROOT, 'arithmetic'));
    // A stand-in for an LLM: calls calculate on the expression in the task, then answers with what the tool said.
    const model = new ScriptedModel(
      [
        (req) => {
          const text = sentText(req);
          const result = /Observation from calculate: .* = (\S+)/.exec(text);
          if (result) return JSON.stringify({ final_answer: result[1] });
          const expression = /Compute (.+?)\. Use the calculate tool/.exec(text)![1];
          return JSON.stringify({ action: { name: 'calculate', args: { expression } } });
        },
      ],
      { loop: true, id: 'scripted:calc' },
    );
    const r = await runSuite({ suite, agentFactory: await factoryOf(suite), model, outDir: out(), concurrency: 4 });
    expect(r.summary.passRate.rate).toBe(1);
    expect(r.summary.perTrial.steps).toBe(2);
    expect(r.summary.totals.tokens).toBeGreaterThan(0);
  });

  it('file-edits: the oracle passes every task, and a do-nothing agent fails each with the files named', async () => {
    const suite = await loadSuite(join(ROOT, 'file-edits'));
    const factory = await factoryOf(suite);
    const good = await runSuite({ suite, agentFactory: factory, outDir: out() });
    expect(good.summary.passRate.rate).toBe(1);
    expect(good.results[0].explanation).toMatch(/file\(s\) as expected/);
    const idle = await runSuite({
      suite,
      outDir: out(),
      // The suite's workspace, but an agent that answers at once without editing anything.
      agentFactory: async (ctx) => ({ ...((await factory(ctx)) as BenchAgent), agent: new OracleAgent() }),
    });
    expect(idle.summary.passRate.passed).toBe(0);
    const port = idle.results.find((l) => l.taskId === 'port-8080')!;
    expect(port.explanation).toBe('config.ini: content differs');
    expect(idle.results.find((l) => l.taskId === 'add-gitignore')!.explanation).toBe('.gitignore: missing');
  });

  it('gaia-sample: GAIA-format lines scored with GAIA normalisation', async () => {
    const suite = await loadSuite(join(ROOT, 'gaia-sample'));
    const replies: Record<string, string> = {
      'How many minutes': '527,040',
      'chemical symbol': 'Au',
      'shop sells pens': '$1,500',
      'first five prime': '11,13,17,19,23',
      'Eiffel Tower': 'Paris.',
      'train leaves': '205 minutes',
      'primary colours': 'Red; Green; Blue',
      '15% of 2,460': '370',
    };
    const model = new ScriptedModel(
      [
        (req) => {
          const text = sentText(req);
          const key = Object.keys(replies).find((k) => text.includes(k))!;
          return JSON.stringify({ final_answer: replies[key] });
        },
      ],
      { loop: true },
    );
    const r = await runSuite({ suite, agentFactory: await factoryOf(suite), model, outDir: out() });
    expect(r.summary.passRate).toMatchObject({ passed: 7, total: 8 });
    expect(r.summary.failed.map((f) => f.taskId)).toEqual(['s-008']);
    const none = await runSuite({ suite, agentFactory: await factoryOf(suite), outDir: out() });
    expect(none.summary.errors.setup).toBe(8);
    expect(none.summary.errors.samples[0].error).toMatch(/needs a model: pass --model/);
  });
});
