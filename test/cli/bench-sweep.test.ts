import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { qitos, tempDir } from '../helpers/cli-harness.js';

const ARITH = join(resolve(__dirname, '../..'), 'benchmarks/arithmetic');
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir('qitos-sweep-')));
afterEach(() => cleanup());

const resultCount = (cell: string) =>
  readFileSync(join(dir, 'sw', cell, 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean).length;

describe('qitos bench sweep', () => {
  it('runs every cell of the grid, prints a Holm-corrected table against the baseline, and resumes', async () => {
    // The suite's oracle agent needs 2 steps: with a budget of 1 step every task fails; agent.note changes nothing.
    const args = [
      'bench',
      'sweep',
      ARITH,
      '--grid',
      'engine.maxSteps=6,1',
      '--grid',
      'agent.note=a,b',
      '-o',
      'sw',
      '-j',
      '8',
      '--csv',
      'sw.csv',
    ];
    const r = await qitos(args, dir);
    expect(r.code, r.err).toBe(0);
    const cells = readdirSync(join(dir, 'sw'))
      .filter((n) => !n.endsWith('.json'))
      .sort();
    expect(cells).toEqual([
      'engine.maxSteps-1__agent.note-a',
      'engine.maxSteps-1__agent.note-b',
      'engine.maxSteps-6__agent.note-a',
      'engine.maxSteps-6__agent.note-b',
    ]);
    for (const c of cells) expect(resultCount(c)).toBe(25);
    expect(
      JSON.parse(readFileSync(join(dir, 'sw/engine.maxSteps-1__agent.note-b/run.json'), 'utf8')).config,
    ).toMatchObject({ engine: { maxSteps: 1 }, agent: { note: 'b' } });
    expect(r.out).toContain('sweep of suite arithmetic: 4 cells, baseline engine.maxSteps=6,agent.note=a');
    const row = (prefix: string) =>
      r.out
        .split('\n')
        .find((l) => l.replace(/\s+/g, ' ').startsWith(prefix))
        ?.replace(/\s+/g, ' ');
    expect(row('6 a ')).toBe('6 a 25/25 100.0% 86.7%-100.0% baseline');
    expect(row('6 b ')).toBe('6 b 25/25 100.0% 86.7%-100.0% +0.0 +0.0 to +0.0 1.0000 1.0000');
    // 25 discordant pairs: p = 2 * 0.5^25; Holm multiplies the smallest of the three by 3 (ties: 3 then 2, made monotone).
    expect(row('1 a ')).toBe('1 a 25/25 0.0% 0.0%-13.3% -100.0 -100.0 to -100.0 <0.0001 <0.0001 worse');
    const sweep = JSON.parse(readFileSync(join(dir, 'sw/sweep.json'), 'utf8'));
    const p = 2 * 0.5 ** 25;
    const ps = sweep.cells.map(
      (c: { comparison: { pValue: number; pHolm: number } | null }) =>
        c.comparison && [c.comparison.pValue, c.comparison.pHolm],
    );
    expect(ps[0]).toBeNull();
    expect(ps[1]).toEqual([1, 1]);
    for (const [raw, adjusted] of ps.slice(2)) {
      expect(raw / p).toBeCloseTo(1, 9);
      expect(adjusted / (3 * p)).toBeCloseTo(1, 9);
    }
    const csv = readFileSync(join(dir, 'sw.csv'), 'utf8').trim().split('\n');
    expect(csv[0]).toBe(
      'cell,dir,engine.maxSteps,agent.note,baseline,trials,expected_trials,pass_rate,ci_low,ci_high,paired_trials,delta,delta_ci_low,delta_ci_high,a_only,b_only,p_value,p_holm',
    );
    expect(csv[1]).toMatch(
      /^"engine\.maxSteps=6,agent\.note=a",sw\/engine\.maxSteps-6__agent\.note-a,6,a,true,25,25,1,/,
    );
    expect(csv).toHaveLength(5);
    expect(r.err).toMatch(/\[4\/4\] .*: 25\/25 trials \(25 run\), pass/);

    // Run again: complete cells are left as they are; a cell cut short is resumed.
    const cut = join(dir, 'sw/engine.maxSteps-1__agent.note-a/results.jsonl');
    writeFileSync(cut, readFileSync(cut, 'utf8').trim().split('\n').slice(0, 10).join('\n') + '\n');
    const again = await qitos(args, dir);
    expect(again.code, again.err).toBe(0);
    expect(again.err).toContain('engine.maxSteps=6,agent.note=a: 25/25 trials (already complete)');
    expect(again.err).toContain('engine.maxSteps=1,agent.note=a: 25/25 trials (15 run, 10 resumed)');
    expect(resultCount('engine.maxSteps-1__agent.note-a')).toBe(25);

    // Other settings for the same folders: refused before any trial runs, naming the cell and the field.
    if (cut) writeFileSync(cut, readFileSync(cut, 'utf8').trim().split('\n').slice(0, 10).join('\n') + '\n');
    const other = await qitos([...args, '--set', 'engine.maxRecoveries=1'], dir);
    expect(other.code).not.toBe(0);
    expect(other.err).toContain(
      'cell engine.maxSteps=6,agent.note=a: cannot resume: the output folder holds a run with other settings',
    );
    expect(other.err).toContain('engine.maxRecoveries: (unset) -> 1');
    expect(resultCount('engine.maxSteps-1__agent.note-a')).toBe(10);
    const forced = await qitos(
      [
        ...args,
        '--set',
        'engine.maxRecoveries=1',
        '--force-resume',
        '--json',
        '--baseline',
        'agent.note=b,engine.maxSteps=6',
      ],
      dir,
    );
    expect(forced.code, forced.err).toBe(0);
    expect(JSON.parse(forced.out)).toMatchObject({
      baseline: 'engine.maxSteps=6,agent.note=b',
      cells: [{ baseline: false }, { baseline: true }, {}, {}],
    });
    expect(
      JSON.parse(readFileSync(join(dir, 'sw/engine.maxSteps-1__agent.note-a/run.json'), 'utf8')).forcedResumes,
    ).toHaveLength(1);
  }, 60_000);

  it('a model axis runs each model; bad grids and baselines are one-line errors', async () => {
    writeFileSync(join(dir, 'zero.json'), JSON.stringify({ replies: ['{"final_answer": "0"}'], loop: true }));
    writeFileSync(join(dir, 'zero2.json'), JSON.stringify({ replies: ['{"final_answer": "0"}'], loop: true }));
    const r = await qitos(
      ['bench', 'sweep', ARITH, '--grid', 'model=scripted:zero.json,scripted:zero2.json', '-o', 'm', '--json'],
      dir,
    );
    expect(r.code, r.err).toBe(0);
    const s = JSON.parse(r.out);
    expect(
      s.cells.map((c: { settings: Record<string, string>; passRate: { rate: number } }) => [
        c.settings.model,
        c.passRate.rate,
      ]),
    ).toEqual([
      ['scripted:zero.json', 0],
      ['scripted:zero2.json', 0],
    ]);
    expect(existsSync(join(dir, 'm', s.cells[0].dir.split('/').pop(), 'results.jsonl'))).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, s.cells[1].dir, 'run.json'), 'utf8')).model).toBe('scripted:zero2.json');

    const bad: Array<[string[], string]> = [
      [['--grid', 'engine.maxSteps'], '--grid engine.maxSteps: expected key=value1,value2'],
      [['--grid', 'engine.maxSteps=1,,2'], 'a value is empty'],
      [['--grid', 'engine.maxSteps=1,1'], 'value "1" is given twice'],
      [['--grid', 'engine.maxSteps=1', '--grid', 'engine.maxSteps=2'], '--grid engine.maxSteps is given twice'],
      [['--grid', 'engine.maxSteps=1,x'], 'cell engine.maxSteps=x: --set engine.maxSteps=x: '],
      [['--grid', 'engine.maxStep=1'], 'engine has no field "maxStep"'],
      [
        ['--grid', 'engine.maxSteps=1,2', '--baseline', 'engine.maxSteps=3'],
        '--baseline engine.maxSteps=3: no such cell; the cells are: engine.maxSteps=1 | engine.maxSteps=2',
      ],
    ];
    for (const [extra, message] of bad) {
      const b = await qitos(['bench', 'sweep', ARITH, '-o', 'bad', ...extra], dir);
      expect(b.code, extra.join(' ')).not.toBe(0);
      expect(b.err, extra.join(' ')).toContain(message);
    }
    expect(existsSync(join(dir, 'bad'))).toBe(false);
  }, 60_000);
});
