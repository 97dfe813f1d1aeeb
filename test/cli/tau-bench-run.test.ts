import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFIG_HOME, qitos, tempDir } from '../helpers/cli-harness.js';
import { tauDataDir } from '../../src/bench/tau-bench/index.js';
import { NO_DATA, tauDataInstalledHere } from '../bench/tau-bench/tau-test-domain.js';

const REPO = resolve(__dirname, '../..');
const data = tauDataInstalledHere();
if (!data) console.log(NO_DATA);
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir('qitos-tau-cli-')));
afterEach(() => cleanup());

/**
 * `node bin/qitos.js <args>` in a real process with a cleared environment (PATH, the config and data dirs only), its
 * standard input `input` when given (the debugger reads its commands there).
 */
function qitosProcess(args: string[], input?: string): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [join(REPO, 'bin/qitos.js'), ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', XDG_CONFIG_HOME: CONFIG_HOME, QITOS_TAU_BENCH_DATA: tauDataDir() },
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => void (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => void (err += d.toString()));
  if (input !== undefined) child.stdin!.end(input);
  return new Promise((res) => child.on('close', (code) => res({ code, out, err })));
}

const cancel = (order: string) => ({
  toolCalls: [{ name: 'cancel_pending_order', input: JSON.stringify({ order_id: order, reason: 'no longer needed' }) }],
});
const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describe.skipIf(!data)('qitos bench run tau-bench/<domain>', () => {
  it(
    'runs tasks in a real process with scripted agent and customer models, records reward, db ' +
      "hash and the customer's usage; compare tells two agents apart",
    async () => {
      // The customer (strategy llm) asks, confirms, then stops; each trial gets a fresh copy of each script.
      writeFileSync(
        join(dir, 'user.json'),
        JSON.stringify(['I want to cancel an order.', 'Yes, go ahead.', '###STOP###']),
      );
      // Variant A acts: it cancels order #W5442520 (right for dev task 0, someone else's order for task 2).
      writeFileSync(
        join(dir, 'acts.json'),
        JSON.stringify(['Shall I cancel order #W5442520?', cancel('#W5442520'), 'It is cancelled.']),
      );
      // Variant B only talks.
      writeFileSync(
        join(dir, 'talks.json'),
        JSON.stringify(['I am sorry to hear that.', 'Please contact us again.', 'Goodbye.']),
      );
      const common = [
        'bench',
        'run',
        'tau-bench/retail',
        '--split',
        'dev',
        '--task-ids',
        '0,2',
        '--user-model',
        'scripted:user.json',
        '--no-progress',
      ];
      const a = await qitosProcess([...common, '--model', 'scripted:acts.json', '-o', 'runs/a']);
      expect(a.code, a.err).toBe(0);
      expect(a.out).toContain('suite tau-bench-retail-dev: 2/2 trials');
      expect(a.out).toContain('pass rate 50.0% (1/2)');
      expect(a.out).toMatch(/^user calls \(in the totals, not the agent's steps\): 6 calls, \d+ tokens/m);
      const results = lines(join(dir, 'runs/a/results.jsonl')).sort((x, y) => x.taskId.localeCompare(y.taskId));
      expect(results.map((r) => [r.taskId, r.details.reward, r.usageByPurpose.user.modelCalls])).toEqual([
        ['0', 1, 3],
        ['2', 0, 3],
      ]);
      expect(results[0].details.dbHash).toBe(results[0].details.gtDbHash);
      expect(results[1].details.dbHash).not.toBe(results[1].details.gtDbHash);
      const run = JSON.parse(readFileSync(join(dir, 'runs/a/run.json'), 'utf8'));
      expect(run.config.tau).toMatchObject({
        domain: 'retail',
        split: 'dev',
        agent: 'tool-calling',
        userStrategy: 'llm',
        userModel: 'scripted:user.json',
      });

      const b = await qitosProcess([...common, '--model', 'scripted:talks.json', '-o', 'runs/b']);
      expect(b.code, b.err).toBe(0);
      expect(b.out).toContain('pass rate 0.0% (0/2)');
      const c = await qitos(['bench', 'compare', 'runs/a', 'runs/b'], dir);
      expect(c.code, c.err).toBe(0);
      expect(c.out).toContain('Broken in B (passed in A, failed in B): 1');
      // Resuming with another customer strategy is refused: the two would not be comparable.
      const r = await qitos(
        [...common, '--model', 'scripted:acts.json', '--user-strategy', 'react', '-o', 'runs/a', '--resume'],
        dir,
      );
      expect(r.code).not.toBe(0);
      expect(r.err).toMatch(/tau\.userStrategy/);
    },
    120_000,
  );

  it('the ground-truth agent needs no model and scores 1.0; --trials k reports pass^1..k', async () => {
    const r = await qitos(
      [
        'bench',
        'run',
        'tau-bench/airline',
        '--agent',
        'ground-truth',
        '--task-ids',
        '0-2',
        '--trials',
        '2',
        '-o',
        'gt',
        '--no-progress',
      ],
      dir,
    );
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('pass rate 100.0% (6/6)');
    expect(r.out).toContain('pass^k: ^1 100.0%, ^2 100.0%');
    const summary = JSON.parse(readFileSync(join(dir, 'gt/summary.json'), 'utf8'));
    expect(summary.passHatK).toEqual({ 1: 1, 2: 1 });
  }, 60_000);

  it('qitos bench sweep runs a tau-bench suite for every cell of a grid, each cell a tau-bench run of its own', async () => {
    const r = await qitos(
      [
        'bench',
        'sweep',
        'tau-bench/airline',
        '--agent',
        'ground-truth',
        '--task-ids',
        '0-1',
        '--grid',
        'engine.maxSteps=2,60',
        '-o',
        'sweep',
        '--no-progress',
      ],
      dir,
    );
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('sweep of suite tau-bench-airline-test: 2 cells, baseline engine.maxSteps=2');
    for (const [cell, maxSteps] of [
      ['engine.maxSteps-2', 2],
      ['engine.maxSteps-60', 60],
    ] as const) {
      const run = JSON.parse(readFileSync(join(dir, 'sweep', cell, 'run.json'), 'utf8'));
      expect(run.config).toMatchObject({
        engine: { maxSteps },
        tau: { domain: 'airline', split: 'test', agent: 'ground-truth', userStrategy: 'scripted' },
      });
      const results = lines(join(dir, 'sweep', cell, 'results.jsonl'));
      expect(results.map((x) => [x.taskId, x.details.reward]).sort()).toEqual([
        ['0', 1],
        ['1', 1],
      ]);
    }
  }, 60_000);

  it('a trial is a run like any other: replay serves the agent and the customer from the recording; fork and debug rebuild it', async () => {
    writeFileSync(
      join(dir, 'user.json'),
      JSON.stringify(['I want to cancel an order.', 'Yes, go ahead.', '###STOP###']),
    );
    writeFileSync(
      join(dir, 'acts.json'),
      JSON.stringify(['Shall I cancel order #W5442520?', cancel('#W5442520'), 'It is cancelled.']),
    );
    const args = ['bench', 'run', 'tau-bench/retail', '--split', 'dev', '--task-ids', '0', '--no-progress'];
    const run = await qitos(
      [...args, '--model', 'scripted:acts.json', '--user-model', 'scripted:user.json', '-o', 'a'],
      dir,
    );
    expect(run.code, run.err).toBe(0);
    const trace = join(dir, 'a', 'traces', '0.e1');
    const m = JSON.parse(readFileSync(join(trace, 'manifest.json'), 'utf8'));
    expect(m.config.suite).toMatchObject({
      provider: 'tau-bench',
      domain: 'retail',
      split: 'dev',
      agent: 'tool-calling',
    });

    // Every model call, the customer's too, comes from the recording: the scripts are gone.
    rmSync(join(dir, 'user.json'));
    rmSync(join(dir, 'acts.json'));
    const replay = await qitos(['replay', trace, '--json', '--trace-dir', 'replays'], dir);
    expect(replay.code, replay.err + replay.out).toBe(0);
    const outcome = JSON.parse(replay.out);
    expect(outcome).toMatchObject({ matched: true, drifts: [] });
    expect(outcome.replay.stopReason).toBe(m.summary.stopReason);
    const again = JSON.parse(readFileSync(join(outcome.replay.traceDir, 'manifest.json'), 'utf8'));
    expect(again.config.suite).toEqual(m.config.suite);
    // A replay of the replay: the record carried over.
    const twice = await qitos(['replay', outcome.replay.traceDir, '--json', '--trace-dir', 'replays'], dir);
    expect(JSON.parse(twice.out).matched, twice.err).toBe(true);

    const debug = await qitosProcess(['debug', trace, '-q', '--trace-dir', 'debugs'], 'c\n');
    expect(debug.code, debug.err + debug.out).toBe(0);
    expect(debug.out).toContain(`debugging a replay of ${m.runId}`);

    // A fork calls the models the trial named, from the state after step 1.
    writeFileSync(join(dir, 'user.json'), JSON.stringify(['Yes, go ahead.', '###STOP###']));
    writeFileSync(join(dir, 'acts.json'), JSON.stringify([cancel('#W5442520'), 'It is cancelled.']));
    const fork = await qitos(['fork', trace, '--at', '1', '--json', '-q', '--trace-dir', 'forks'], dir);
    expect(fork.code, fork.err + fork.out).toBe(0);
    const forked = JSON.parse(fork.out);
    expect(forked.parent).toMatchObject({ runId: m.runId, atStep: 1 });
    expect(forked.stopReason).toBe('env_terminal');
  }, 120_000);

  it('a trial recorded before providers (config.tau) replays; an unknown provider or commit is refused plainly', async () => {
    const run = await qitos(
      [
        ...['bench', 'run', 'tau-bench/airline', '--task-ids', '0', '--agent', 'ground-truth'],
        '-o',
        'gt',
        '--no-progress',
      ],
      dir,
    );
    expect(run.code, run.err).toBe(0);
    const trace = join(dir, 'gt', 'traces', '0.e1');
    const file = join(trace, 'manifest.json');
    const m = JSON.parse(readFileSync(file, 'utf8'));
    const edited = (config: Record<string, unknown>) => writeFileSync(file, JSON.stringify({ ...m, config }));
    const { suite, ...rest } = m.config;
    const { provider: _provider, ...record } = suite;
    edited({ ...rest, tau: record });
    // An edited manifest is a trace from elsewhere: it names nothing to import here, so --trust-trace is enough.
    const old = await qitos(['replay', trace, '--json', '--trust-trace'], dir);
    expect(old.code, old.err + old.out).toBe(0);
    expect(JSON.parse(old.out).matched).toBe(true);
    edited({ ...rest, suite: { ...suite, provider: 'nosuch-bench' } });
    const unknown = await qitos(['replay', trace, '--trust-trace'], dir);
    expect(unknown.err).toMatch(/is a trial of a "nosuch-bench" suite, which this qitos-ts does not know/);
    edited({ ...rest, suite: { ...suite, commit: 'f00' } });
    const commit = await qitos(['replay', trace, '--trust-trace'], dir);
    expect(commit.err).toMatch(/ran on tau-bench data at commit f00/);
    expect(commit.err).not.toMatch(/corrupt/);
  }, 60_000);

  it('bad input is a one-line error naming what was wrong', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--split', 'nope'], /has no split "nope" \(it has: test, train, dev\)/],
      [['--task-ids', '999'], /has no task 999 \(ids are 0\.\.114\)/],
      [['--task-ids', 'x'], /--task-ids: "x" is not a task index/],
      [['--user-strategy', 'human', '--model', 'openai:gpt-4o'], /unknown strategy "human"/],
      [[], /the tau-bench agent "tool-calling" needs a model: pass --model/],
      [['--agent', 'nosuch'], /"nosuch" is neither a tau-bench agent/],
    ];
    for (const [flags, message] of cases) {
      const r = await qitos(['bench', 'run', 'tau-bench/retail', '-o', 'x', ...flags], dir);
      expect(r.code, flags.join(' ')).not.toBe(0);
      expect(r.err, flags.join(' ')).toMatch(message);
    }
  });
});

describe('tau-bench flags on other suites', () => {
  it('are refused', async () => {
    const r = await qitos(
      ['bench', 'run', join(REPO, 'benchmarks/arithmetic'), '--user-model', 'openai:gpt-4o', '-o', 'x'],
      dir,
    );
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/--user-model applies to tau-bench suites only/);
    const sweep = await qitos(
      [
        'bench',
        'sweep',
        join(REPO, 'benchmarks/arithmetic'),
        '--grid',
        'engine.maxSteps=1,2',
        '--split',
        'dev',
        '-o',
        'y',
      ],
      dir,
    );
    expect(sweep.code).not.toBe(0);
    expect(sweep.err).toMatch(/--split applies to tau-bench suites only/);
  });
});
