import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readTrace } from '../../src/trace/index.js';
import { stateAtStep } from '../../src/trace/index.js';
import { stableJson } from '../../src/trace/index.js';
import { CALC_AGENT, FIXTURES, editManifest, qitos, recordCalcRun, tempDir } from '../helpers/cli-harness.js';
import { startFakeOpenAI } from '../../src/kit/testing/fake-llm-servers.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

const other = async (name: string, replies: unknown[]) => {
  await writeFile(join(dir, name), JSON.stringify(replies));
  return join(dir, name);
};

describe('qitos diff', () => {
  it('equal runs (a replay against its parent): no difference, exit 0 even with --exit-code', async () => {
    const { traceDir } = await recordCalcRun(dir);
    const replay = JSON.parse((await qitos(['replay', traceDir, '--json'], dir)).out).replay.traceDir;
    const r = await qitos(['diff', traceDir, replay, '--exit-code'], dir);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^no difference in 2 aligned steps$/m);
    const j = JSON.parse((await qitos(['diff', traceDir, replay, '--json'], dir)).out);
    expect(j).toMatchObject({ same: true, first: null, initialStateDiffers: false });
    expect(j.steps.map((s: { phases: string[] }) => s.phases)).toEqual([[], []]);
  });

  it('runs of different lengths and models: first step and phase where they part, per-step table, totals', async () => {
    const { traceDir: a } = await recordCalcRun(dir);
    const script = await other('b.json', [
      '{"thought": "compute it", "action": {"name": "calc", "args": {"expr": "17 * 22"}}}',
      '{"action": {"name": "calc", "args": {"expr": "374 + 17"}}}',
      '{"final_answer": "391"}',
    ]);
    const { traceDir: b } = await recordCalcRun(dir, [], script);
    const r = await qitos(['diff', a, b, '--exit-code'], dir);
    expect(r.code).toBe(1);
    expect(r.out).not.toMatch(/start from different states/);
    expect(r.out).toMatch(
      /^first difference: step 1, action args: A: calc\(expr="17 \* 23"\) \| B: calc\(expr="17 \* 22"\)$/m,
    );
    expect(r.out).toMatch(
      /^2 +final: 391 +calc\(expr="374 \+ 17"\) +model_input\(messages\), decision, result, state$/m,
    );
    expect(r.out).toMatch(/^3 +\(none\) +final: 391 +missing$/m);
    expect(r.out).toMatch(/^steps +2 +3$/m);
    expect(r.out).toMatch(/^stop +final +final$/m);
    const j = JSON.parse((await qitos(['diff', a, b, '--json'], dir)).out);
    expect(j.first).toEqual({
      step: 1,
      phase: 'action_args',
      detail: 'A: calc(expr="17 * 23")  |  B: calc(expr="17 * 22")',
    });
    expect(j.steps[0].phases).toEqual(['action_args', 'result', 'state']);
    expect(j.totals.a.tokens).toBe(312);
    expect(j.totals.b.model).toBe(`scripted:${script}`);
  });

  it('a changed system prompt shows as model input (system) from step 1', async () => {
    const { traceDir: a } = await recordCalcRun(dir);
    await writeFile(join(dir, 'c.yaml'), 'agent:\n  system: Another prompt.\n');
    const { traceDir: b } = await recordCalcRun(dir, ['-c', 'c.yaml']);
    const j = JSON.parse((await qitos(['diff', a, b, '--json'], dir)).out);
    expect(j.first.step).toBe(1);
    expect(j.first.phase).toBe('model_input');
    expect(j.steps[0].modelInput).toEqual(['system']);
    // The user message records the system prompt it was sent with, so the state differs too.
    expect(j.steps[0].phases).toEqual(['model_input', 'state']);
  });
});

describe('qitos fork', () => {
  it('rebuilds the state after step k exactly (property of every recorded step)', async () => {
    const script = await other('long.json', [
      '{"action": {"name": "calc", "args": {"expr": "1 + 1"}}}',
      'not json at all',
      '{"action": {"name": "calc", "args": {"expr": "2 * 3"}}}',
      '{"final_answer": "6"}',
    ]);
    const { traceDir, run } = await recordCalcRun(dir, [], script);
    expect(JSON.parse(run.out).steps).toBe(4);
    const trace = await readTrace(traceDir);
    // The state after the last step, rebuilt from diffs, is the state the run ended with (bar the end's stop fields).
    const last = stateAtStep(trace, 4);
    expect(last.finalResult).toBe('6');
    expect(last.messages).toHaveLength(1 + 4 + 1); // task, 4 replies, 1 recovery note
    for (let k = 0; k <= 4; k++) expect(stateAtStep(trace, k).step).toBe(k);
    expect(() => stateAtStep(trace, 5)).toThrow('has steps 1..4; cannot fork at step 5');
  });

  it('forks after step k with another model: parent link, history kept, new ending', async () => {
    const { traceDir } = await recordCalcRun(dir);
    const script = await other('fork.json', ['{"final_answer": "three hundred ninety-one"}']);
    const r = await qitos(['fork', traceDir, '--at', '1', '--model', `scripted:${script}`, '--json'], dir);
    expect(r.code, r.err).toBe(0);
    const res = JSON.parse(r.out);
    expect(res).toMatchObject({ stopReason: 'final', finalResult: 'three hundred ninety-one', steps: 2 });
    const fork = await readTrace(res.traceDir);
    const parent = await readTrace(traceDir);
    expect(fork.manifest.parent).toEqual({ runId: parent.manifest.runId, path: traceDir, kind: 'fork', atStep: 1 });
    expect(fork.steps.map((s) => s.step)).toEqual([2]);
    expect(stableJson(fork.manifest.initialState)).toBe(
      stableJson({ ...stateAtStep(parent, 1), stopReason: null, finalResult: null }),
    );
    // The fork's model saw the parent's history: same request as the parent's step 2.
    expect(fork.steps[0].model!.hashes).toEqual(parent.steps[1].model!.hashes);
    const d = JSON.parse((await qitos(['diff', traceDir, res.traceDir, '--json'], dir)).out);
    expect(d.first).toMatchObject({ step: 2, phase: 'decision' });
    expect(d.steps[0]).toMatchObject({ step: 1, inherited: true, phases: [] });
  });

  it('a trace that does not record how to rebuild its model asks for --model instead of failing at step k+1', async () => {
    const { traceDir } = await recordCalcRun(dir);
    // As a run built in code records it: the model's id, no config to rebuild it from.
    const m = await editManifest(traceDir, (m) => delete m.config.model);
    const r = await qitos(['fork', traceDir, '--at', '1', '--json'], dir);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      `qitos: trace ${traceDir} ran on model ${m.model.id}, which its recorded config does not ` +
        `name (it was not started with \`qitos run\`); pass --model\n`,
    );
    expect(JSON.parse(r.out).error).toMatch(/pass --model$/);
    const script = await other('f.json', ['{"final_answer": "391"}']);
    expect((await qitos(['fork', traceDir, '--at', '1', '--model', `scripted:${script}`, '--json'], dir)).code).toBe(0);
  });

  it('fork --task replaces the objective; bad --at values are one-line errors', async () => {
    const { traceDir } = await recordCalcRun(dir);
    const r = await qitos(['fork', traceDir, '--at', '0', '--task', 'What is 2 + 2?', '--json'], dir);
    expect(r.code, r.err).toBe(0);
    const fork = await readTrace(JSON.parse(r.out).traceDir);
    expect(fork.manifest.task.objective).toBe('What is 2 + 2?');
    const tooFar = await qitos(['fork', traceDir, '--at', '9'], dir);
    expect(tooFar.code).toBe(2);
    expect(tooFar.err).toBe(`qitos: trace ${traceDir} has steps 1..2; cannot fork at step 9\n`);
    const neg = await qitos(['fork', traceDir, '--at', '-1'], dir);
    expect(neg.code).toBe(2);
    expect(neg.err).toMatch(/expected a non-negative integer/);
    const fromFork = JSON.parse(
      (
        await qitos(
          ['fork', traceDir, '--at', '1', '--model', `scripted:${join(FIXTURES, 'scripts/calc.json')}`, '--json'],
          dir,
        )
      ).out,
    ).traceDir;
    const before = await qitos(['fork', fromFork, '--at', '0'], dir);
    expect(before.err).toMatch(
      /^qitos: step 0 is before this trace's first state \(step 1\); fork its parent instead\n$/,
    );
  });
});

describe('qitos fork: the model endpoint', () => {
  it(
    'the manifest records the endpoint (from OPENAI_COMPATIBLE_BASE_URL too), and a fork ' +
      'whose requests go elsewhere says so',
    async () => {
      const reply = { text: '{"final_answer": "391"}' };
      const a = await startFakeOpenAI([reply, reply]);
      const b = await startFakeOpenAI([reply]);
      try {
        const run = await qitos(
          ['run', CALC_AGENT, '--task', 'What is 17 * 23?', '--model', 'openai-compatible:m', '--json'],
          dir,
          { OPENAI_COMPATIBLE_BASE_URL: a.url },
        );
        expect(run.code, run.err).toBe(0);
        const traceDir = JSON.parse(run.out).traceDir as string;
        expect((await readTrace(traceDir)).manifest.model?.endpoint).toBe(a.url.replace(/\/$/, ''));
        const same = await qitos(['fork', traceDir, '--at', '0', '--model', 'openai-compatible:m', '--json'], dir, {
          OPENAI_COMPATIBLE_BASE_URL: a.url,
        });
        expect(same.code, same.err).toBe(0);
        expect(same.err).not.toMatch(/warning: the fork's model requests go to/);
        const moved = await qitos(['fork', traceDir, '--at', '0', '--model', 'openai-compatible:m', '--json'], dir, {
          OPENAI_COMPATIBLE_BASE_URL: b.url,
        });
        expect(moved.code, moved.err).toBe(0);
        expect(moved.err).toContain(
          `warning: the fork's model requests go to ${b.url.replace(/\/$/, '')}, the parent's went to ${a.url.replace(/\/$/, '')}`,
        );
        expect(b.requests).toHaveLength(1);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    },
  );
});
