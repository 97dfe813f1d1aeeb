import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, qitos, recordCalcRun, tempDir } from '../helpers/cli-harness.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

describe('qitos runs and inspect', () => {
  it('runs lists every run with id, agent, model, status, stop reason, steps, tokens, cost, date and variant', async () => {
    const { traceDir: a } = await recordCalcRun(dir);
    const { traceDir: b } = await recordCalcRun(dir, ['--max-steps', '1']);
    await mkdir(join(dir, 'traces', 'not-a-trace'));
    await writeFile(join(dir, 'traces', 'not-a-trace', 'manifest.json'), '{"schema": "other"}');
    const r = await qitos(['runs'], dir);
    expect(r.code).toBe(0);
    expect(r.out.split('\n')[0]).toMatch(
      /^RUN +AGENT +MODEL +STATUS +STOP +STEPS +TOKENS +COST +DATE +VARIANT \(vs the earlier run of its agent\)$/,
    );
    const idA = a.split('/').pop()!;
    expect(r.out).toMatch(
      new RegExp(
        `^${idA} +CalcAgent +scripted:\\S+ +completed +final +2 +312 +0\\.00270 +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d +-$`,
        'm',
      ),
    );
    // The second run's variant: what differs from the first run of the same agent.
    expect(r.out).toMatch(
      new RegExp(`^${b.split('/').pop()} +CalcAgent +\\S+ +completed +budget_steps +1 .* engine\\.maxSteps=1$`, 'm'),
    );
    expect(r.err).toMatch(/^warning: skipped not a trace: manifest\.json in .*not-a-trace has schema "other"/);
    const j = JSON.parse((await qitos(['runs', 'traces', '--json'], dir)).out);
    expect(j).toHaveLength(2);
    expect(j.find((x: { runId: string }) => x.runId === idA)).toMatchObject({
      agent: 'CalcAgent',
      status: 'completed',
      stopReason: 'final',
      steps: 2,
      tokens: 312,
      cost: 0.0027,
      variant: null,
    });
    expect(j.find((x: { runId: string }) => x.runId !== idA)).toMatchObject({
      settings: {
        module: {
          path: expect.stringMatching(/calc-agent\.ts$/),
          export: expect.any(String),
          sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        },
        engine: { maxSteps: 1 },
      },
      variant: { against: idA, differences: [{ path: 'engine.maxSteps', to: 1 }] },
    });
    expect((await qitos(['runs', 'nowhere'], dir)).err).toBe(`qitos: runs folder not found: ${join(dir, 'nowhere')}\n`);
  });

  it("inspect shows the run's settings, its module hash, and a fork's variant against its parent", async () => {
    const { traceDir } = await recordCalcRun(dir, ['--set', 'agent.note=base']);
    const base = await qitos(['inspect', traceDir], dir);
    expect(base.out).toMatch(/^settings  model\.id=scripted:\S+, agent\.note=base|^settings  .*agent\.note=base/m);
    expect(base.out).toMatch(/^module    sha256 [0-9a-f]{64}$/m);
    expect(base.out).not.toContain('variant');
    const f = await qitos(
      ['fork', traceDir, '--at', '0', '--json', '--set', 'engine.maxSteps=9', '--set', 'agent.note=fork'],
      dir,
    );
    expect(f.code, f.err).toBe(0);
    const forked = JSON.parse(f.out).traceDir as string;
    const r = await qitos(['inspect', forked], dir);
    expect(r.out).toMatch(
      new RegExp(`^variant   vs parent ${traceDir.split('/').pop()}: agent\\.note=fork, engine\\.maxSteps=9$`, 'm'),
    );
    const j = JSON.parse((await qitos(['inspect', forked, '--json'], dir)).out);
    expect(j.variant.differences).toEqual([
      { path: 'agent.note', from: 'base', to: 'fork' },
      { path: 'engine.maxSteps', to: 9 },
    ]);
    expect(j.settings).toMatchObject({ agent: { note: 'fork' }, engine: { maxSteps: 9 } });
  });

  it('inspect prints the manifest summary and the failures', async () => {
    const { traceDir } = await recordCalcRun(dir, [], join(FIXTURES, 'scripts/flaky.json'));
    const r = await qitos(['inspect', traceDir], dir);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^agent +CalcAgent +from .*calc-agent\.ts#default$/m);
    expect(r.out).toMatch(/^stop +final: the agent gave a final answer$/m);
    expect(r.out).toMatch(/^failures +1\n +step 1 +model_transport: connection reset$/m);
    const j = JSON.parse((await qitos(['inspect', traceDir, '--json'], dir)).out);
    expect(j.failures).toEqual([{ step: 1, kind: 'model_transport', message: 'connection reset', fatal: false }]);
    expect(j.stepErrors).toEqual([{ step: 1, kind: 'model_transport', message: 'connection reset', recovered: true }]);
  });

  it('bad traces: not a folder, not a trace, a newer schema version, corrupt lines: one line each, exit 2', async () => {
    const { traceDir } = await recordCalcRun(dir);
    const manifest = JSON.parse(await readFile(join(traceDir, 'manifest.json'), 'utf8'));
    await mkdir(join(dir, 'newer'));
    await writeFile(join(dir, 'newer', 'manifest.json'), JSON.stringify({ ...manifest, version: 99 }));
    await writeFile(join(dir, 'file.txt'), 'x');
    const cases: Array<[string[], string]> = [
      [['inspect', 'missing'], `qitos: not a trace: ${join(dir, 'missing')} is not a folder\n`],
      [['inspect', 'file.txt'], `qitos: not a trace: ${join(dir, 'file.txt')} is not a folder\n`],
      [['inspect', '.'], `qitos: not a trace: no manifest.json in ${dir}\n`],
      [
        ['replay', 'newer'],
        `qitos: trace ${join(dir, 'newer')} has schema version 99, newer than this qitos supports (1); upgrade qitos-ts\n`,
      ],
      [
        ['diff', traceDir, 'newer'],
        `qitos: trace ${join(dir, 'newer')} has schema version 99, newer than this qitos supports (1); upgrade qitos-ts\n`,
      ],
      [
        ['view', 'newer'],
        `qitos: trace ${join(dir, 'newer')} has schema version 99, newer than this qitos supports (1); upgrade qitos-ts\n`,
      ],
      [['fork', '.', '--at', '1'], `qitos: not a trace: no manifest.json in ${dir}\n`],
    ];
    for (const [args, err] of cases) {
      const r = await qitos(args, dir);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err, args.join(' ')).toBe(err);
    }
    // A corrupt line in the middle is an error naming the file and line.
    const steps = await readFile(join(traceDir, 'steps.jsonl'), 'utf8');
    await writeFile(join(traceDir, 'steps.jsonl'), 'garbage\n' + steps);
    expect((await qitos(['inspect', traceDir], dir)).err).toBe(
      'qitos: corrupt trace: steps.jsonl line 1 is not JSON\n',
    );
  });

  it('a truncated trace (last line cut by a crash) still reads, with a warning', async () => {
    const { traceDir } = await recordCalcRun(dir);
    await appendFile(join(traceDir, 'steps.jsonl'), '{"step": 3, "startedAt": 1, "dur');
    const r = await qitos(['inspect', traceDir], dir);
    expect(r.code).toBe(0);
    expect(r.err).toBe(`warning: ${traceDir}: steps.jsonl: dropped line 3, cut off mid-write\n`);
    expect(r.out).toMatch(/^steps +2 \(2 recorded\)$/m);
    const d = await qitos(['diff', traceDir, traceDir, '--json'], dir);
    expect(JSON.parse(d.out).same).toBe(true);
  });
});
