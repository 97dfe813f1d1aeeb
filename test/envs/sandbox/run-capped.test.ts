import { describe, expect, it } from 'vitest';
import { AbortedError, EnvError } from '../../../src/index.js';
import { runCapped } from '../../../src/envs/sandbox/index.js';

const sh = (command: string, over: Partial<Parameters<typeof runCapped>[0]> = {}) =>
  runCapped({ argv: ['/bin/sh', '-c', command], cwd: '/tmp', env: { PATH: '/usr/bin:/bin' }, timeoutMs: 10_000, maxOutputBytes: 1e6, ...over });

describe('runCapped', () => {
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
    await expect(sh('true', { signal: AbortSignal.abort() })).rejects.toThrow(new AbortedError('/bin/sh aborted before it started'));
    await expect(runCapped({ argv: ['/nonexistent/qitos'], cwd: '/tmp', env: {}, timeoutMs: 1000, maxOutputBytes: 10 })).rejects.toThrow(new EnvError('cannot run /nonexistent/qitos: not found'));
  });
});
