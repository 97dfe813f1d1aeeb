import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { qitos, tempDir } from '../helpers/cli-harness.js';

const REPO = resolve(__dirname, '../..');
const ARITH = join(REPO, 'benchmarks/arithmetic');
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir('qitos-bench-resume-')));
afterEach(() => cleanup());

const read = (file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8'));
/** Keeps the first n result lines, as if the run had been interrupted after n trials. */
function cut(out: string, n: number): void {
  const file = join(dir, out, 'results.jsonl');
  writeFileSync(file, readFileSync(file, 'utf8').trim().split('\n').slice(0, n).join('\n') + '\n');
}

describe('bench run --resume checks the recorded settings', () => {
  it('records the effective settings in run.json and the module hash in every trace', async () => {
    writeFileSync(join(dir, 'a.yaml'), 'engine:\n  maxRecoveries: 2\nagent:\n  variantNote: a\n');
    const r = await qitos(
      ['bench', 'run', ARITH, '-o', 'r', '-c', 'a.yaml', '--set', 'engine.toolTimeoutMs=5000', '--no-progress'],
      dir,
    );
    expect(r.code, r.err).toBe(0);
    const sha = createHash('sha256')
      .update(readFileSync(join(ARITH, 'agent.ts')))
      .digest('hex');
    const run = read('r/run.json');
    expect(run.config).toEqual({
      module: { path: expect.stringMatching(/benchmarks\/arithmetic\/agent\.ts$/), export: 'default', sha256: sha },
      engine: { maxRecoveries: 2, toolTimeoutMs: 5000 },
      agent: { variantNote: 'a' },
      components: { parser: 'json', tools: ['calculate'], policies: [] },
    });
    const manifest = read('r/traces/arith-001.e1/manifest.json');
    expect(manifest.agent).toMatchObject({
      module: expect.stringMatching(/agent\.ts$/),
      export: 'default',
      sha256: sha,
    });
    expect(manifest.config).toMatchObject({
      engine: { maxRecoveries: 2, toolTimeoutMs: 5000 },
      agent: { variantNote: 'a' },
    });
  });

  it('a refusal over a setting that is a text of several lines (a prompt in the agent options) shows its unified diff', async () => {
    writeFileSync(
      join(dir, 'a.yaml'),
      'agent:\n  note: |\n    Be careful.\n    Check every sum twice.\n    Answer with a number.\n',
    );
    writeFileSync(
      join(dir, 'b.yaml'),
      'agent:\n  note: |\n    Be careful.\n    Check every sum once.\n    Answer with a number.\n',
    );
    expect((await qitos(['bench', 'run', ARITH, '-o', 'r', '-c', 'a.yaml', '--no-progress'], dir)).code).toBe(0);
    cut('r', 3);
    const refused = await qitos(['bench', 'run', ARITH, '-o', 'r', '-c', 'b.yaml', '--resume', '--no-progress'], dir);
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain('--- agent.note (recorded)\n+++ agent.note (now)\n');
    expect(refused.err).toContain(
      '\n Be careful.\n-Check every sum twice.\n+Check every sum once.\n Answer with a number.\n',
    );
  });

  it(
    'refuses a resume with another config, naming the fields; the same settings resume; ' +
      '--force-resume proceeds and is recorded',
    async () => {
      writeFileSync(join(dir, 'a.yaml'), 'engine:\n  maxRecoveries: 2\n');
      writeFileSync(join(dir, 'b.yaml'), 'engine:\n  maxRecoveries: 3\nagent:\n  temperature: 0.5\n');
      expect((await qitos(['bench', 'run', ARITH, '-o', 'r', '-c', 'a.yaml', '--no-progress'], dir)).code).toBe(0);
      cut('r', 5);

      const refused = await qitos(['bench', 'run', ARITH, '-o', 'r', '-c', 'b.yaml', '--resume', '--no-progress'], dir);
      expect(refused.code).not.toBe(0);
      expect(refused.err).toContain('cannot resume: the output folder holds a run with other settings');
      expect(refused.err).toContain('engine.maxRecoveries: 2 -> 3');
      expect(refused.err).toContain('agent.temperature: (unset) -> 0.5');
      expect(refused.err).toContain('--force-resume');
      expect(readFileSync(join(dir, 'r/results.jsonl'), 'utf8').trim().split('\n')).toHaveLength(5);

      // The same settings given another way (--set instead of the file) are the same run.
      const same = await qitos(
        ['bench', 'run', ARITH, '-o', 'r', '--set', 'engine.maxRecoveries=2', '--resume', '--no-progress'],
        dir,
      );
      expect(same.code, same.err).toBe(0);
      expect(same.out).toContain('suite arithmetic: 25/25 trials');
      expect(read('r/run.json').forcedResumes).toBeUndefined();

      cut('r', 5);
      const forced = await qitos(
        ['bench', 'run', ARITH, '-o', 'r', '-c', 'b.yaml', '--resume', '--force-resume', '--no-progress'],
        dir,
      );
      expect(forced.code, forced.err).toBe(0);
      expect(forced.out).toContain('suite arithmetic: 25/25 trials');
      const run = read('r/run.json');
      expect(run.config.engine).toEqual({ maxRecoveries: 2 });
      expect(run.forcedResumes).toEqual([
        {
          at: expect.any(String),
          differences: [
            { path: 'agent.temperature', to: 0.5 },
            { path: 'engine.maxRecoveries', from: 2, to: 3 },
          ],
        },
      ]);
      expect((await qitos(['bench', 'run', ARITH, '-o', 'r', '--force-resume'], dir)).err).toContain(
        '--force-resume goes with --resume',
      );
    },
  );

  it('an edited agent module is another variant: resume names module.sha256', async () => {
    const suite = join(dir, 'suite');
    const { cpSync } = await import('node:fs');
    cpSync(ARITH, suite, { recursive: true });
    // The copied agent imports the repo's sources by a relative path: point it back at the repo.
    const agent = join(suite, 'agent.ts');
    writeFileSync(agent, readFileSync(agent, 'utf8').replaceAll("'../../src/", `'${join(REPO, 'src')}/`));
    expect((await qitos(['bench', 'run', suite, '-o', 'r', '--no-progress'], dir)).code).toBe(0);
    cut('r', 3);
    appendFileSync(agent, '\n// edited\n');
    const refused = await qitos(['bench', 'run', suite, '-o', 'r', '--resume', '--no-progress'], dir);
    expect(refused.code).not.toBe(0);
    expect(refused.err).toMatch(/module\.sha256: "[0-9a-f]{64}" -> "[0-9a-f]{64}"/);
  });

  it('a run.json from before settings were recorded still resumes, with a warning in the summary', async () => {
    expect((await qitos(['bench', 'run', ARITH, '-o', 'r', '--no-progress'], dir)).code).toBe(0);
    cut('r', 4);
    const run = read('r/run.json');
    delete run.config;
    writeFileSync(join(dir, 'r/run.json'), JSON.stringify(run));
    const r = await qitos(['bench', 'run', ARITH, '-o', 'r', '--resume', '--no-progress', '--json'], dir);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out).warnings).toContain(
      'run.json records no settings (written by an older qitos): resumed without checking that the settings are the same',
    );
  });
});
