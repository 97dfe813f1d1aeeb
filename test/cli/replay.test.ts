import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CALC_AGENT, FIXTURES, editManifest, qitos, recordCalcRun, tempDir } from '../helpers/cli-harness.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

describe('qitos replay', () => {
  it('replays a run from its recorded outputs: every decision matches, exit 0, the new trace points to its parent', async () => {
    const { traceDir } = await recordCalcRun(dir);
    const r = await qitos(['replay', traceDir], dir);
    expect(r.code, r.err + r.out).toBe(0);
    expect(r.out).toMatch(/^decisions: all 2 match the recording$/m);
    const json = await qitos(['replay', traceDir, '--json'], dir);
    const outcome = JSON.parse(json.out);
    expect(outcome).toMatchObject({
      matched: true,
      drifts: [],
      firstMismatch: null,
      decisions: { recorded: 2, replayed: 2, matched: 2 },
    });
    const m = JSON.parse(await readFile(join(outcome.replay.traceDir, 'manifest.json'), 'utf8'));
    expect(m.parent).toEqual({
      runId: JSON.parse(await readFile(join(traceDir, 'manifest.json'), 'utf8')).runId,
      path: traceDir,
      kind: 'replay',
    });
    expect(m.summary).toMatchObject({ stopReason: 'final', finalResult: '391' });
  });

  it('serves recorded tool results by default; --live-tools executes the tools again', async () => {
    const { traceDir } = await recordCalcRun(dir);
    // Change the recorded tool output: a served replay must show it, a live one must not.
    const stepsPath = join(traceDir, 'steps.jsonl');
    const lines = (await readFile(stepsPath, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    lines[0].results[0].output = '390';
    lines[0].results[0].state.output = '390';
    await writeFile(stepsPath, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    await editManifest(traceDir); // this machine's own edit: signed again
    // The recorded step-2 request hashes were computed from "391": both replays drift in messages unless allowed.
    const served = JSON.parse((await qitos(['replay', traceDir, '--json', '--allow-drift'], dir)).out);
    const servedSteps = (await readFile(join(served.replay.traceDir, 'steps.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(servedSteps[0].results[0].output).toBe('390');
    expect(served.drifts).toEqual([
      { step: 2, parts: ['messages'], message: 'replay drift at step 2: the model request differs in messages' },
    ]);
    const live = JSON.parse((await qitos(['replay', traceDir, '--json', '--live-tools'], dir)).out);
    const liveSteps = (await readFile(join(live.replay.traceDir, 'steps.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(liveSteps[0].results[0].output).toBe('391');
    expect(live.drifts).toEqual([]);
  });

  it('on drift it stops at the first step naming what differs, exit 1; --allow-drift goes on and reports it', async () => {
    const { traceDir } = await recordCalcRun(dir);
    await editManifest(traceDir, (m) => (m.config.agent = { system: 'A changed system prompt.' }));
    const r = await qitos(['replay', traceDir], dir);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^drift: replay drift at step 1: the model request differs in system prompt$/m);
    expect(r.out).toMatch(
      /^decisions: differ from step 1: recorded calc\(expr="17 \* 23"\) \| replay error: model_request/m,
    );
    const allowed = await qitos(['replay', traceDir, '--allow-drift', '--json'], dir);
    expect(allowed.code).toBe(0);
    const outcome = JSON.parse(allowed.out);
    expect(outcome.matched).toBe(true);
    expect(outcome.drifts.map((d: { step: number; parts: string[] }) => [d.step, d.parts])).toEqual([
      [1, ['system']],
      [2, ['system']],
    ]);
  });

  it('replays a fork from the state it was forked at (and a replay of that replay), every decision matching', async () => {
    const { traceDir } = await recordCalcRun(dir);
    await writeFile(join(dir, 'fork.json'), JSON.stringify(['{"final_answer": "three hundred ninety-one"}']));
    const fork = JSON.parse(
      (await qitos(['fork', traceDir, '--at', '1', '--model', 'scripted:fork.json', '--json'], dir)).out,
    ).traceDir;
    const r = await qitos(['replay', fork, '--json'], dir);
    expect(r.code, r.out).toBe(0);
    const o = JSON.parse(r.out);
    expect(o).toMatchObject({ matched: true, drifts: [], decisions: { recorded: 1, replayed: 1, matched: 1 } });
    expect(o.replay).toMatchObject({ stopReason: 'final', finalResult: 'three hundred ninety-one', steps: 2 });
    const again = await qitos(['replay', o.replay.traceDir, '--json'], dir);
    expect(again.code, again.out).toBe(0);
    expect(JSON.parse(again.out).matched).toBe(true);
  });

  it('a step that ended in an error matches only when the replay fails the same way (an exhausted script cannot be replayed)', async () => {
    await writeFile(join(dir, 'one.json'), JSON.stringify(['{"action": {"name": "calc", "args": {"expr": "1 + 1"}}}']));
    const run = await qitos(['run', CALC_AGENT, '-t', 'x', '-m', 'scripted:one.json', '--json'], dir);
    expect(JSON.parse(run.out).stopReason).toBe('unrecoverable_error');
    const r = await qitos(['replay', JSON.parse(run.out).traceDir, '--json'], dir);
    expect(r.code).toBe(1);
    const o = JSON.parse(r.out);
    expect(o.matched).toBe(false);
    expect(o.firstMismatch).toEqual({ step: 2, recorded: 'error: internal', replayed: 'error: model_request' });
    expect(o.decisions).toEqual({ recorded: 2, replayed: 2, matched: 1 });
  });

  it('replays a recorded model error at the same step', async () => {
    const { traceDir } = await recordCalcRun(dir, [], join(FIXTURES, 'scripts/flaky.json'));
    const r = await qitos(['replay', traceDir, '--json'], dir);
    expect(r.code, r.out).toBe(0);
    const o = JSON.parse(r.out);
    expect(o.replay.failures).toEqual([
      { step: 1, kind: 'model_transport', message: 'connection reset', fatal: false },
    ]);
    expect(o.decisions).toEqual({ recorded: 3, replayed: 3, matched: 3 });
  });

  it('a missing agent module, a trace without a module, and a folder that is not a trace are one-line errors', async () => {
    const { traceDir } = await recordCalcRun(dir);
    await editManifest(traceDir, (m) => (m.agent.module = 'gone/agent.ts'));
    const gone = await qitos(['replay', traceDir], dir);
    expect(gone.code).toBe(2);
    expect(gone.err).toBe(
      'qitos: agent module not found: gone/agent.ts (the trace records it relative to the ' +
        'folder its run was started in; run this command from there, or pass --agent)\n',
    );
    await editManifest(traceDir, (m) => delete m.agent.module);
    const none = await qitos(['replay', traceDir], dir);
    expect(none.err).toMatch(/^qitos: trace .* does not record its agent module/);
    const notTrace = await qitos(['replay', dir], dir);
    expect(notTrace.err).toBe(`qitos: not a trace: no manifest.json in ${dir}\n`);
  });
});
