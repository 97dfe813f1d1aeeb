import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTrace } from '../../src/trace/trace-reader.js';
import { processesWithArg as processesWith, until } from '../helpers/host-processes.js';

const repo = path.resolve(__dirname, '../..');
const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'qitos-signals-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));

let seq = 0;
/** Starts the fixture run and waits until its bash command's processes exist. */
async function startRun(mode: 'clean' | 'stuck', sandbox: 'auto' | 'none') {
  const token = `3${process.pid % 1000}.${++seq}${Date.now() % 100000}`;
  const dir = mkdtempSync(path.join(base, 'run-'));
  const child = spawn(
    process.execPath,
    [
      '--import',
      path.join(repo, 'node_modules/tsx/dist/loader.mjs'),
      path.join(repo, 'test/fixtures/signal-run.ts'),
      path.join(dir, 'traces'),
      dir,
      token,
      mode,
      sandbox,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    child.on('close', (code, signal) => res({ code, signal })),
  );
  await until(() => processesWith(`${token}2`).length > 0 || child.exitCode !== null, 'the bash command to start');
  if (child.exitCode !== null) throw new Error(`the fixture exited early: ${err}`);
  return { child, token, closed, out: () => out, err: () => err };
}

describe('stop signals (real processes)', () => {
  for (const [signal, sandbox] of [
    ['SIGTERM', 'auto'],
    ['SIGHUP', 'none'],
    ['SIGINT', 'auto'],
  ] as const) {
    it(`${signal} ends the run interrupted, finalizes the trace and kills the command's processes (sandbox ${sandbox})`, async () => {
      const run = await startRun('clean', sandbox);
      run.child.kill(signal);
      const { code } = await run.closed;
      expect(code, run.err()).toBe(0);
      const [reason, traceDir] = run.out().trim().split(' ');
      expect(reason).toBe('interrupted');
      const t = await readTrace(traceDir);
      expect(t.manifest.status).toBe('interrupted');
      expect(t.manifest.summary?.stopReason).toBe('interrupted');
      // SIGKILL is delivered asynchronously: wait (bounded) for the processes to be gone.
      await until(
        () => [1, 2, 3].every((i) => processesWith(`${run.token}${i}`).length === 0),
        "the command's processes to be killed",
        5000,
      );
    }, 60_000);
  }

  for (const [first, second, status] of [
    ['SIGTERM', 'SIGTERM', 143],
    ['SIGHUP', 'SIGINT', 130],
  ] as const) {
    it(`a second signal (${first}, then ${second}) kills the env's processes and exits at once with ${status}`, async () => {
      const run = await startRun('stuck', 'auto');
      // The env's setup started a command outside the run's abort (the step's command is already running).
      await until(() => processesWith(`${run.token}0`).length === 1, 'the setup command to start');
      run.child.kill(first);
      // The first signal aborted the step: its command is gone, and the run hangs in the env's close.
      await until(() => processesWith(`${run.token}2`).length === 0, 'the aborted command to end');
      expect(run.child.exitCode).toBeNull();
      run.child.kill(second);
      const { code } = await run.closed;
      expect(code, run.err()).toBe(status);
      await until(() => processesWith(`${run.token}0`).length === 0, 'the setup command to be killed', 5000);
    }, 60_000);
  }
});
