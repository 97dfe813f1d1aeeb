import { mkdtempSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { manifestSignature } from '../../src/trace/index.js';
import { folderDigests } from '../../src/trace/trace-files.js';

/** Fixture paths of the CLI tests. */
export const FIXTURES = resolve(__dirname, '../fixtures');
export const CALC_AGENT = join(FIXTURES, 'agents/calc-agent.ts');
export const CALC_SCRIPT = join(FIXTURES, 'scripts/calc.json');

/**
 * The config folder (XDG_CONFIG_HOME) of this test file's CLI runs: their trace key lives there, not in the
 * user's home, so runs recorded by a test replay and fork as this machine's own.
 */
export const CONFIG_HOME = mkdtempSync(join(tmpdir(), 'qitos-config-'));
// One per test file that uses the harness: removed when the file's tests are done.
afterAll(() => rm(CONFIG_HOME, { recursive: true, force: true }));

/** What one in-process CLI invocation printed and returned. */
export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** Runs `qitos <args>` in-process with captured output, in `cwd` (with XDG_CONFIG_HOME = CONFIG_HOME unless `env` sets it). */
export async function qitos(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  let out = '';
  let err = '';
  const io: CliIO = {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    cwd,
    env: { XDG_CONFIG_HOME: CONFIG_HOME, ...env },
    exitCode: 0,
  };
  const code = await main(args, io);
  return { code, out, err };
}

/** A fresh temp folder; call the returned clean-up in afterEach. */
export async function tempDir(prefix = 'qitos-cli-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Runs the calculator fixture with the given scripted replies file and returns the trace folder (asserts success). */
export async function recordCalcRun(
  cwd: string,
  extra: string[] = [],
  script = CALC_SCRIPT,
): Promise<{ traceDir: string; run: CliRun }> {
  const run = await qitos(
    ['run', CALC_AGENT, '--task', 'What is 17 * 23?', '--model', `scripted:${script}`, '--json', ...extra],
    cwd,
  );
  if (run.code !== 0) throw new Error(`qitos run failed (${run.code}): ${run.err}${run.out}`);
  return { traceDir: JSON.parse(run.out).traceDir as string, run };
}

/**
 * Edits a recorded manifest and signs the trace again with this test file's trace key (the digests of its files as
 * they are now, and the manifest), for tests of what replay and fork do with a changed recording of this machine's
 * own (an edit without re-signing makes the trace untrusted). Edit a JSONL file first, then call this.
 */
export async function editManifest(
  traceDir: string,
  edit: (m: Record<string, any>) => void = () => {},
): Promise<Record<string, any>> {
  const p = join(traceDir, 'manifest.json');
  const { signature: _old, ...m } = JSON.parse(await readFile(p, 'utf8'));
  edit(m);
  m.files = folderDigests(traceDir, {});
  const key = Buffer.from((await readFile(join(CONFIG_HOME, 'qitos', 'trace-key'), 'utf8')).trim(), 'hex');
  await writeFile(p, JSON.stringify({ ...m, signature: manifestSignature(m, key) }));
  return m;
}

/** bin/qitos.js, the installed command. */
export const QITOS_BIN = resolve(__dirname, '../../bin/qitos.js');

/**
 * Runs bin/qitos.js as a real subprocess (tsx compiles a .ts agent, as for a user) with a minimal environment:
 * PATH, XDG_CONFIG_HOME = CONFIG_HOME, and `env`. Never rejects: a failing command gives its exit code.
 */
export async function qitosProcess(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  try {
    const r = await promisify(execFile)(process.execPath, [QITOS_BIN, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', XDG_CONFIG_HOME: CONFIG_HOME, ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout: string; stderr: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout, stderr: e.stderr };
  }
}

/** A `qitos serve …` subprocess once it listens: its URL, the process, its output so far, and its exit. */
export interface ServeProcess {
  url: string;
  child: import('node:child_process').ChildProcess;
  out: () => string;
  exit: Promise<number | null>;
}

/**
 * Starts `qitos serve …` (bin/qitos.js) in `cwd` with a cleared environment plus `env`, and resolves once it printed
 * its listening and auth lines. The caller kills it (push `child` to a list its afterEach kills).
 */
export async function serveProcess(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<ServeProcess> {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [QITOS_BIN, 'serve', ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d));
  child.stderr!.on('data', (d: Buffer) => (out += d));
  const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const url = await new Promise<string>((res, rej) => {
    const t = setInterval(() => {
      const m = /listening on (http:\/\/\S+).*\n.*\n/.exec(out);
      if (m) {
        clearInterval(t);
        res(m[1]!);
      } else if (child.exitCode !== null) {
        clearInterval(t);
        rej(new Error(`qitos serve exited: ${out}`));
      }
    }, 20);
  });
  return { url, child, out: () => out, exit };
}
