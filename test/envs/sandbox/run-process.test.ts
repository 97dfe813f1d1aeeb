import { describe, expect, it } from 'vitest';
import { AbortedError, EnvError } from '../../../src/index.js';
import { runProcess, runProcessBytes } from '../../../src/envs/sandbox/index.js';

const sh = (command: string, over: Partial<Parameters<typeof runProcess>[2]> = {}) =>
  runProcess('/bin/sh', ['-c', command], {
    cwd: '/tmp',
    env: { PATH: '/usr/bin:/bin' },
    timeoutMs: 10_000,
    maxOutputBytes: 1e6,
    ...over,
  });

describe('runProcess', () => {
  it('runs a program with exactly the given environment, stdin and cwd', async () => {
    process.env.QITOS_RUN_CAPPED_SECRET = 'leak';
    try {
      const r = await sh('cat; env | sort; pwd', { stdin: 'in\n', env: { A: 'b', PATH: '/usr/bin:/bin' } });
      expect(r).toMatchObject({ exitCode: 0, timedOut: false, truncated: false });
      expect(r.stdout).toBe('in\nA=b\nPATH=/usr/bin:/bin\nPWD=/tmp\n/tmp\n');
    } finally {
      delete process.env.QITOS_RUN_CAPPED_SECRET;
    }
  });

  it('kills the whole process group at the time limit', async () => {
    const r = await sh('sleep 30 & sleep 30', { timeoutMs: 300 });
    expect(r).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGKILL' });
  });

  it('cuts the output at the cap and kills the program', async () => {
    const r = await sh('yes', { maxOutputBytes: 50_000 });
    expect(r.truncated).toBe(true);
    expect(r.stdout.length).toBe(50_000);
  });

  it('rejects on abort and on a program that does not exist', async () => {
    const ctl = new AbortController();
    const p = sh('sleep 30', { signal: ctl.signal });
    setTimeout(() => ctl.abort(), 100);
    await expect(p).rejects.toBeInstanceOf(AbortedError);
    await expect(sh('true', { signal: AbortSignal.abort() })).rejects.toThrow(
      new AbortedError('command aborted before it started: /bin/sh -c true'),
    );
    await expect(
      runProcess('/nonexistent/qitos', [], { cwd: '/tmp', env: {}, timeoutMs: 1000, maxOutputBytes: 10 }),
    ).rejects.toThrow(
      new EnvError('cannot run "/nonexistent/qitos": it was not found (is it installed, and on PATH?)'),
    );
  });

  it('stops a background process that holds the output once the program exits, and says so', async () => {
    const r = await sh('echo started; sleep 30 &', { timeoutMs: 20_000 });
    expect(r).toMatchObject({ exitCode: 0, timedOut: false, stdout: 'started\n' });
    expect(r.stderr).toContain('a background process it started still held its output');
    expect(r.durationMs).toBeLessThan(10_000);
  });
});

describe('runProcessBytes', () => {
  it(
    'keeps binary output byte for byte, reports an abort in the result, and rejects with the ' +
      'error of a program that cannot start',
    async () => {
      const bytes = await runProcessBytes('/bin/sh', ['-c', 'printf "\\377\\000\\201"'], {
        env: {},
        timeoutMs: 10_000,
        maxOutputBytes: 100,
      });
      expect([...bytes.stdout]).toEqual([0xff, 0x00, 0x81]);
      const ctl = new AbortController();
      const p = runProcessBytes('/bin/sh', ['-c', 'sleep 30'], {
        env: {},
        timeoutMs: 20_000,
        maxOutputBytes: 100,
        signal: ctl.signal,
      });
      setTimeout(() => ctl.abort(), 100);
      expect(await p).toMatchObject({ aborted: true, exitCode: null, signal: 'SIGKILL' });
      await expect(
        runProcessBytes('/nonexistent/qitos', [], { env: {}, timeoutMs: 1000, maxOutputBytes: 10 }),
      ).rejects.toMatchObject({ code: 'ENOENT' });
    },
  );
});
