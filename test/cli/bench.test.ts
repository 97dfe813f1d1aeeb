import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { qitos, tempDir } from '../helpers/cli-harness.js';
import { summaryText } from '../../src/cli/commands/bench-action.js';
import { summarize } from '../../src/bench/index.js';
import { emptyTokens } from '../../src/core/index.js';

const REPO = resolve(__dirname, '../..');
const ARITH = join(REPO, 'benchmarks/arithmetic');
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir('qitos-bench-cli-')));
afterEach(() => cleanup());

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

/** A suite whose agent waits `delayMs` per task, then answers the expected value. */
function slowSuite(n: number, delayMs: number): string {
  const s = join(dir, 'slow');
  mkdirSync(s);
  writeFileSync(join(s, 'package.json'), '{"type": "module"}\n');
  writeFileSync(join(s, 'suite.yaml'), 'name: slow\ntasks: tasks.jsonl\nscorer: exact_match\nagent: ./agent.ts\n');
  writeFileSync(
    join(s, 'tasks.jsonl'),
    Array.from({ length: n }, (_, i) =>
      JSON.stringify({ id: `s${i}`, objective: `echo ${i}`, expected: String(i) }),
    ).join('\n') + '\n',
  );
  writeFileSync(
    join(s, 'agent.ts'),
    `import { AgentModule, baseState, decide } from ${JSON.stringify(join(REPO, 'src/index.ts'))};
export default class SlowAgent extends AgentModule {
  initState(task) { return baseState(task, 3); }
  async decide(state) { await new Promise((r) => setTimeout(r, ${delayMs})); return decide.final(state.task.split(' ')[1]); }
}
`,
  );
  return s;
}

describe('summaryText', () => {
  it('an interrupted multi-epoch run with no task at k epochs yet prints no made-up pass@k', () => {
    const line = {
      taskId: 'a',
      epoch: 1,
      pass: true,
      score: 1,
      explanation: '',
      stopReason: 'final' as const,
      steps: 1,
      tokens: 0,
      tokenDetail: emptyTokens(),
      cost: 0,
      modelCalls: 0,
      durationMs: 1,
      traceDir: null,
      runId: null,
      answer: '1',
      error: null,
      errorKind: null,
      finishedAt: '',
    };
    const text = summaryText(
      summarize([line], {
        suite: 's',
        model: null,
        agent: null,
        epochs: 3,
        shard: null,
        taskIds: ['a', 'b'],
        interrupted: true,
      }),
      'out',
    );
    expect(text).toContain('suite s: 1/6 trials (5 missing, interrupted: continue with --resume)');
    expect(text).not.toMatch(/pass@|NaN/);
    const done = summaryText(
      summarize([line, { ...line, epoch: 2 }, { ...line, epoch: 3, pass: false }], {
        suite: 's',
        model: null,
        agent: null,
        epochs: 3,
        shard: null,
        taskIds: ['a'],
      }),
      'out',
    );
    expect(done).toContain('pass@3 100.0%, pass^3 0.0%');
  });
});

describe('qitos bench run', () => {
  it('runs a shipped suite offline, prints the summary and plain progress lines, and writes the run folder', async () => {
    const r = await qitos(['bench', 'run', ARITH, '--out', 'runs/a', '--concurrency', '4'], dir);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^suite arithmetic: 25\/25 trials$/m);
    expect(r.out).toMatch(/^pass rate 100\.0% \(25\/25\), 95% CI 86\.7%-100\.0%$/m);
    expect(r.out).toContain('stop reasons: final 25');
    expect(r.out).toContain(`report: ${join('runs/a', 'report.md')}`);
    expect(r.err).toMatch(
      /^\[1\/25\] arith-\d+ e1 pass \(final, 2 steps, \d+ ms\) \| pass 100\.0% \| tokens 0 \| cost \$0\.0000$/m,
    );
    expect(lines(join(dir, 'runs/a/results.jsonl'))).toHaveLength(25);
    const run = JSON.parse(readFileSync(join(dir, 'runs/a/run.json'), 'utf8'));
    expect(run).toMatchObject({
      suite: 'arithmetic',
      agent: join(ARITH, 'agent.ts').startsWith(dir)
        ? expect.any(String)
        : expect.stringContaining('benchmarks/arithmetic/agent.ts'),
      shard: null,
      epochs: 1,
    });
  });

  it('compares an oracle run with a model that answers wrongly: flips listed with qitos diff lines', async () => {
    writeFileSync(join(dir, 'zero.json'), JSON.stringify({ replies: ['{"final_answer": "0"}'], loop: true }));
    expect((await qitos(['bench', 'run', ARITH, '-o', 'a', '--no-progress'], dir)).code).toBe(0);
    const b = await qitos(
      ['bench', 'run', ARITH, '-o', 'b', '--model', 'scripted:zero.json', '--no-progress', '--json'],
      dir,
    );
    expect(b.code, b.err).toBe(0);
    expect(JSON.parse(b.out)).toMatchObject({ model: 'scripted:zero.json', passRate: { passed: 0, total: 25 } });
    const c = await qitos(['bench', 'compare', 'a', 'b'], dir);
    expect(c.code, c.err).toBe(0);
    expect(c.out).toContain('Pass rate: A 100.0% -> B 0.0%, delta -100.0 pp');
    // B's variant: the settings that differ from A's.
    expect(c.out).toContain('- Settings of B vs A: model.id: (unset) -> "scripted:zero.json"');
    expect(c.out).toContain('0 trials passed only in B, 25 only in A');
    expect(c.out).toContain('B is worse than A at the 5% level.');
    expect(c.out).toContain('## Broken in B (passed in A, failed in B): 25');
    expect(c.out).toMatch(/`qitos diff a\/traces\/arith-001\.e1 b\/traces\/arith-001\.e1`/);
    const j = JSON.parse((await qitos(['bench', 'compare', 'a', 'b', '--json', '--seed', '3'], dir)).out);
    expect(j).toMatchObject({
      pairedTrials: 25,
      mcnemar: { aOnly: 25, bOnly: 0 },
      passRate: { seed: 3 },
      settings: [{ path: 'model.id', to: 'scripted:zero.json' }],
    });
    // The diff command line works as printed.
    const d = await qitos(['diff', 'a/traces/arith-001.e1', 'b/traces/arith-001.e1', '--json'], dir);
    expect(d.code, d.err).toBe(0);

    // A pairwise judge that always prefers whatever it sees first: both orders disagree on every pair, so it
    // decides nothing (ties) and the report says why; its calls are counted.
    writeFileSync(
      join(dir, 'first.json'),
      JSON.stringify({ replies: [{ text: '{"winner": "1"}', cost: 0.001 }], loop: true }),
    );
    const judged = await qitos(
      ['bench', 'compare', 'a', 'b', '--judge', 'scripted:first.json', '--rubric', 'the right number'],
      dir,
    );
    expect(judged.code, judged.err).toBe(0);
    expect(judged.out).toContain('## Pairwise judgement');
    expect(judged.out).toContain('**B wins 0, A wins 0, ties 25** of 25 paired trials');
    expect(judged.out).toContain('Ties from orders that disagreed (position bias): 25');
    expect(judged.out).toMatch(/Judge cost: 50 calls, \d+ tokens, \$0\.0500/);
    const jj = JSON.parse(
      (await qitos(['bench', 'compare', 'a', 'b', '--judge', 'scripted:first.json', '--json'], dir)).out,
    );
    expect(jj.pairwise).toMatchObject({ schema: 'qitos.bench.pairwise', pairs: 25, inconsistent: 25 });
    expect((await qitos(['bench', 'compare', 'a', 'b', '--rubric', 'x'], dir)).err).toContain(
      '--rubric needs --judge <provider:model>',
    );
  });

  it('a bench trace can be replayed: it records the agent module and the effective config', async () => {
    writeFileSync(
      join(dir, 'au.json'),
      JSON.stringify({ replies: ['{"thought": "t", "final_answer": "Au"}'], loop: true }),
    );
    const r = await qitos(
      ['bench', 'run', join(REPO, 'benchmarks/gaia-sample'), '-o', 'g', '--model', 'scripted:au.json', '--no-progress'],
      dir,
    );
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('pass rate 12.5% (1/8)');
    const manifest = JSON.parse(readFileSync(join(dir, 'g/traces/s-002.e1/manifest.json'), 'utf8'));
    expect(manifest.agent.module).toMatch(/benchmarks\/gaia-sample\/agent\.ts$/);
    expect(manifest.config).toMatchObject({
      model: { id: 'scripted:au.json' },
      engine: { maxSteps: 10, maxSeconds: 600 },
    });
    const replay = await qitos(['replay', 'g/traces/s-002.e1', '--quiet'], dir);
    expect(replay.code, replay.err + replay.out).toBe(0);
  });

  it('runs shards and merges them; a missing shard is refused', async () => {
    for (const i of [0, 1])
      expect(
        (await qitos(['bench', 'run', ARITH, '--shard', `${i}/2`, '-o', `s${i}`, '--no-progress'], dir)).code,
      ).toBe(0);
    const bad = await qitos(['bench', 'merge', 's0', '--out', 'm'], dir);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(
      /^qitos: cannot merge: \d+ task\/epoch pair\(s\) of suite "arithmetic" are missing: .*belong to no given shard/,
    );
    expect((await qitos(['bench', 'merge', 's0', 's1', 's1', '--out', 'm'], dir)).err).toMatch(
      /^qitos: cannot merge: .*\(s1 and s1\).*\(was a shard given twice\?\)$/m,
    );
    const m = await qitos(['bench', 'merge', 's0', 's1', '--out', 'm'], dir);
    expect(m.code, m.err).toBe(0);
    expect(m.out).toContain('merged 2 run(s) into m');
    expect(m.out).toMatch(/pass rate 100\.0% \(25\/25\)/);
    expect(lines(join(dir, 'm/results.jsonl'))).toHaveLength(25);
  });

  it('a model that fails every task ends with a clear summary and exit code 1', async () => {
    writeFileSync(
      join(dir, 'down.json'),
      JSON.stringify({
        replies: [{ error: { kind: 'server', message: 'HTTP 503: upstream unavailable' } }],
        loop: true,
      }),
    );
    const r = await qitos(['bench', 'run', ARITH, '-o', 'down', '--model', 'scripted:down.json', '--no-progress'], dir);
    expect(r.code).toBe(1);
    expect(r.out).toContain('stop reasons: unrecoverable_error 25');
    expect(r.out).toMatch(/errors: 25 \(run 25, scorer 0, setup 0\); first: .*HTTP 503: upstream unavailable/);
    expect(r.out).toContain('every trial ended in an error');
  });

  it('names the line and field of a bad suite file, and rejects bad flags', async () => {
    mkdirSync(join(dir, 'bad'));
    writeFileSync(
      join(dir, 'bad/suite.yaml'),
      'name: bad\ntasks: t.jsonl\nscorer:\n  type: numeric\n  tolerance: fast\n',
    );
    const r = await qitos(['bench', 'run', 'bad'], dir);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^qitos: .*suite\.yaml line 5, field "scorer\.tolerance": .*expected number/);
    expect((await qitos(['bench', 'run', ARITH, '--resume'], dir)).err).toContain('--resume needs --out <dir>');
    expect((await qitos(['bench', 'run', ARITH, '--shard', '2/2'], dir)).err).toContain(
      'invalid shard "2/2": index 2 is out of range 0..1',
    );
    expect((await qitos(['bench', 'run', ARITH, '--rate-limit', 'fast'], dir)).err).toContain(
      'invalid rate limit "fast"',
    );
    expect((await qitos(['bench', 'compare', 'nope', 'nada'], dir)).err).toContain(
      'qitos: nope is not a bench run: no results.jsonl',
    );
  });

  it('Ctrl-C leaves whole result lines only, exits 130, and --resume finishes the rest (real process)', async () => {
    const suite = slowSuite(12, 120);
    const child = spawn(process.execPath, [join(REPO, 'bin/qitos.js'), 'bench', 'run', suite, '-o', 'int', '-j', '2'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    let sent = false;
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      if (!sent && /\[3\/12\]/.test(err)) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    const code = await new Promise<number | null>((res) => child.on('close', (c) => res(c)));
    expect(err).toContain('interrupted: in-flight trials are aborted and not recorded');
    expect(code).toBe(130);
    const text = readFileSync(join(dir, 'int/results.jsonl'), 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const first = lines(join(dir, 'int/results.jsonl'));
    expect(first.length).toBeGreaterThanOrEqual(3);
    expect(first.length).toBeLessThan(12);
    const r = await qitos(['bench', 'run', suite, '-o', 'int', '--resume', '-j', '4'], dir);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`resuming: ${first.length} of 12 trials already recorded`);
    const all = lines(join(dir, 'int/results.jsonl'));
    expect(all).toHaveLength(12);
    expect(new Set(all.map((l) => l.taskId)).size).toBe(12);
    expect(r.out).toContain('pass rate 100.0% (12/12)');
  }, 30_000);
});
