import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AbortedError, EnvError } from '../../src/core/index.js';
import { HostEnv, LINGER_NOTE } from '../../src/envs/index.js';
import { eventually } from '../helpers/host-processes.js';

let base: string;
let env: HostEnv;

/** True while the process runs (a zombie waiting to be reaped by its new parent counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false; // no /proc entry: gone
  }
}

beforeAll(() => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'qitos-proc-')));
  process.env.QITOS_TEST_SECRET = 'must-not-leak';
  process.env.QITOS_TEST_ALLOWED = 'allowed-value';
  // No sandbox: these tests follow processes by the pids they print, which a PID namespace would renumber.
  // The same behaviour inside bubblewrap is tested in sandbox.test.ts.
  env = new HostEnv({ root: path.join(base, 'ws'), create: true, allowEnv: ['QITOS_TEST_ALLOWED'], sandbox: 'none' });
});

afterAll(() => {
  env.close();
  delete process.env.QITOS_TEST_SECRET;
  delete process.env.QITOS_TEST_ALLOWED;
  rmSync(base, { recursive: true, force: true });
});

describe('HostProcessOps without a sandbox', () => {
  it('runs with bash in the workspace and reports exit code, stdout and stderr', async () => {
    const r = await env.processes!.run('echo out; echo err >&2; pwd; exit 3');
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe(`out\n${env.root}\n`);
    expect(r.stderr).toBe('err\n');
    expect(r.timedOut).toBe(false);
    expect(r.truncated).toBe(false);
  });

  it('clears the environment to the allow-list, with HOME at the workspace', async () => {
    const r = await env.processes!.run(
      'echo "[$QITOS_TEST_SECRET][$QITOS_TEST_ALLOWED][$HOME]"; env | cut -d= -f1 | sort | tr "\\n" " "',
    );
    const [line, names] = r.stdout.split('\n');
    expect(line).toBe(`[][allowed-value][${env.root}]`);
    const vars = names.trim().split(' ');
    for (const v of vars)
      expect(['PATH', 'HOME', 'LANG', 'QITOS_TEST_ALLOWED', 'PWD', 'SHLVL', '_', 'OLDPWD']).toContain(v);
  });

  it('runs in a sub-folder given as cwd and refuses cwd outside or missing', async () => {
    writeFileSync(path.join(env.root, 'marker'), '');
    await env.files.writeText('sub/x.txt', 'x');
    expect((await env.processes!.run('ls', { cwd: 'sub' })).stdout).toBe('x.txt\n');
    await expect(env.processes!.run('ls', { cwd: '..' })).rejects.toThrow(/outside the workspace/);
    await expect(env.processes!.run('ls', { cwd: 'nope' })).rejects.toThrow(/not an existing folder/);
    await expect(env.processes!.run('   ')).rejects.toThrow(EnvError);
  });

  it('kills the whole process group on timeout', async () => {
    const t0 = Date.now();
    const r = await env.processes!.run('sleep 30 & echo $! > bg.pid; sleep 30', { timeoutMs: 300 });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(r.timedOut).toBe(true);
    expect(r.signal).toBe('SIGKILL');
    const bg = Number(readFileSync(path.join(env.root, 'bg.pid'), 'utf8'));
    expect(await eventually(() => !alive(bg))).toBe(true);
  });

  it('stops a command whose output exceeds the cap and marks it truncated', async () => {
    const r = await env.processes!.run('yes qitos', { maxOutputBytes: 64 * 1024, timeoutMs: 10_000 });
    expect(r.truncated).toBe(true);
    expect(r.timedOut).toBe(false);
    expect(Buffer.byteLength(r.stdout) + Buffer.byteLength(r.stderr)).toBe(64 * 1024);
    expect(r.stdout.startsWith('qitos\nqitos\n')).toBe(true);
  });

  it('ends when the shell exits: a background process holding the output is stopped with a note, not waited for', async () => {
    const t0 = Date.now();
    const r = await env.processes!.run('sleep 30 & echo $! > bg.pid; echo started', { timeoutMs: 5000 });
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(r).toMatchObject({ exitCode: 0, timedOut: false, stdout: 'started\n', stderr: `${LINGER_NOTE}\n` });
    const bg = Number(readFileSync(path.join(env.root, 'bg.pid'), 'utf8'));
    expect(await eventually(() => !alive(bg))).toBe(true);
    // Output the command printed just before it exited is all there.
    const big = await env.processes!.run('head -c 300000 /dev/zero | tr "\\0" a; echo; echo oops >&2', {
      timeoutMs: 5000,
    });
    expect(big.stdout.length).toBe(300_001);
    expect(big.stderr).toBe('oops\n');
  });

  it('a background process whose output goes to a file keeps running after the command', async () => {
    const r = await env.processes!.run('sleep 30 > /dev/null 2>&1 & echo $! > bg2.pid', { timeoutMs: 5000 });
    expect(r).toMatchObject({ exitCode: 0, timedOut: false, stderr: '' });
    const bg = Number(readFileSync(path.join(env.root, 'bg2.pid'), 'utf8'));
    try {
      expect(alive(bg)).toBe(true);
    } finally {
      process.kill(bg, 'SIGKILL');
    }
  });

  it('aborts through the signal and kills the command', async () => {
    const ac = new AbortController();
    const p = env.processes!.run('echo $$ > shell.pid; sleep 30', { signal: ac.signal });
    await eventually(
      () =>
        existsSync(path.join(env.root, 'shell.pid')) &&
        readFileSync(path.join(env.root, 'shell.pid'), 'utf8').trim() !== '',
    );
    ac.abort();
    await expect(p).rejects.toBeInstanceOf(AbortedError);
    const pid = Number(readFileSync(path.join(env.root, 'shell.pid'), 'utf8'));
    expect(await eventually(() => !alive(pid))).toBe(true);
  });

  it('passes stdin and per-call env', async () => {
    const r = await env.processes!.run('cat; echo "$EXTRA"', { stdin: 'from stdin\n', env: { EXTRA: 'extra' } });
    expect(r.stdout).toBe('from stdin\nextra\n');
  });

  it('a files-only HostEnv offers no process group, and its file ops work', async () => {
    const filesOnly = new HostEnv({ root: env.root, process: false });
    expect(filesOnly.ops('process')).toBeUndefined();
    await filesOnly.ops('file')!.writeText('files-only.txt', 'written');
    expect(await env.ops('file')!.readText('files-only.txt')).toBe('written');
  });

  it('refuses a root that does not exist unless asked to create it', () => {
    expect(() => new HostEnv({ root: path.join(base, 'missing') })).toThrow(/does not exist/);
  });
});
