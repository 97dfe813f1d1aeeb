import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentModule, Engine, baseState, decide, type Decision, type State, type Task } from '../../src/index.js';
import { readTrace } from '../../src/trace/trace-reader.js';

const repo = path.resolve(__dirname, '../..');
const base = mkdtempSync(path.join(tmpdir(), 'qitos-cpu-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A run that never awaits I/O: each decide is a plain Decision; `onStep` may end it with a final answer. */
class SpinAgent extends AgentModule<State> {
  constructor(private readonly onStep?: (step: number) => string | undefined) {
    super({});
  }
  initState(task: Task) {
    return baseState(task, (task.inputs.steps as number | undefined) ?? 1_000_000);
  }
  override decide(state: State): Decision {
    const final = this.onStep?.(state.step);
    return final === undefined ? decide.call('noop') : decide.final(final);
  }
}

const spin = (onStep?: (step: number) => string | undefined) => new Engine({ agent: new SpinAgent(onStep) });
// Enough steps that the run would outlast what the test waits for, were it not stopped.
const LONG = { id: 'spin', objective: 'spin', inputs: { steps: 300_000 } };

describe('a CPU-bound run lets the event loop run', () => {
  it('SIGINT stops it: it ends interrupted with its trace finalized (a real process)', async () => {
    const dir = mkdtempSync(path.join(base, 'run-'));
    const child = spawn(
      process.execPath,
      [
        '--import',
        path.join(repo, 'node_modules/tsx/dist/loader.mjs'),
        path.join(repo, 'test/fixtures/cpu-run.ts'),
        dir,
        '300000',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const ready = new Promise<void>((res) =>
      child.stdout.on('data', (d) => ((out += d), out.includes('ready\n') && res())),
    );
    const closed = new Promise<number | null>((res) => child.on('close', res));
    await ready;
    child.kill('SIGINT');
    expect(await closed, err).toBe(0);
    const [reason, steps, traceDir] = out.split('\n')[1].split(' ');
    expect(reason).toBe('interrupted');
    expect(Number(steps)).toBeLessThan(300_000);
    const t = await readTrace(traceDir);
    expect(t.manifest.status).toBe('interrupted');
    expect(t.manifest.summary?.stopReason).toBe('interrupted');
    expect(t.steps).toHaveLength(Number(steps));
  }, 120_000);

  it('an AbortSignal aborted from a timer stops it', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const r = await spin().run(LONG, { signal: controller.signal });
    expect(r.stopReason).toBe('interrupted');
    expect(r.steps).toBeLessThan(300_000);
  });

  it('a timer fires while it runs', async () => {
    let fired = false;
    setTimeout(() => (fired = true), 0);
    const r = await spin((step) => (fired ? `timer seen at step ${step}` : undefined)).run(LONG);
    expect(r.stopReason).toBe('final');
    expect(r.finalResult).toMatch(/^timer seen at step \d+$/);
  });

  it('two runs interleave: a run that waits on a timer each step goes on while a CPU-bound one spins', async () => {
    let waited = 0;
    class WaitingAgent extends AgentModule<State> {
      initState(task: Task) {
        return baseState(task, 5);
      }
      override async decide(): Promise<Decision> {
        await new Promise((res) => setTimeout(res, 1));
        waited++;
        return decide.call('noop');
      }
    }
    const cpu = spin((step) =>
      waited === 5 ? `the other run took its 5 steps while this one was at step ${step}` : undefined,
    ).run(LONG);
    const io = new Engine({ agent: new WaitingAgent({}) }).run('wait');
    const [a, b] = await Promise.all([cpu, io]);
    expect(b.stopReason).toBe('budget_steps');
    expect(a.stopReason).toBe('final');
    expect(a.finalResult).toMatch(/^the other run took its 5 steps while this one was at step \d+$/);
  });
});
