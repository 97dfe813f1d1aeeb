import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';

/** Fixture paths of the CLI tests. */
export const FIXTURES = resolve(__dirname, '../fixtures');
export const CALC_AGENT = join(FIXTURES, 'agents/calc-agent.ts');
export const CALC_SCRIPT = join(FIXTURES, 'scripts/calc.json');

/** What one in-process CLI invocation printed and returned. */
export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** Runs `qitos <args>` in-process with captured output, in `cwd`. */
export async function qitos(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  let out = '';
  let err = '';
  const io: CliIO = { out: (t) => void (out += t), err: (t) => void (err += t), cwd, env, exitCode: 0 };
  const code = await main(args, io);
  return { code, out, err };
}

/** A fresh temp folder; call the returned clean-up in afterEach. */
export async function tempDir(prefix = 'qitos-cli-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Runs the calculator fixture with the given scripted replies file and returns the trace folder (asserts success). */
export async function recordCalcRun(cwd: string, extra: string[] = [], script = CALC_SCRIPT): Promise<{ traceDir: string; run: CliRun }> {
  const run = await qitos(['run', CALC_AGENT, '--task', 'What is 17 * 23?', '--model', `scripted:${script}`, '--json', ...extra], cwd);
  if (run.code !== 0) throw new Error(`qitos run failed (${run.code}): ${run.err}${run.out}`);
  return { traceDir: JSON.parse(run.out).traceDir as string, run };
}
