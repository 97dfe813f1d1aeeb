import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bwrapArgv, findBwrap, runProcess } from '../../../src/envs/sandbox/index.js';
import { tempDir } from '../../helpers/kernel-fixtures.js';
import { requires } from '../../helpers/requires.js';

const BWRAP = findBwrap();

describe('bwrapArgv', () => {
  it('builds the namespaces, mounts and environment; writable folders last; network only when allowed', async () => {
    const dir = await tempDir();
    const args = bwrapArgv({
      readOnly: [dir],
      writable: ['/tmp'],
      cwd: '/tmp',
      env: { PATH: '/usr/bin', HOME: '/tmp' },
    });
    expect(args.slice(0, 7)).toEqual([
      '--die-with-parent',
      '--new-session',
      '--unshare-all',
      '--cap-drop',
      'ALL',
      '--clearenv',
      '--setenv',
    ]);
    expect(args).not.toContain('--share-net');
    expect(args.join(' ')).toContain('--setenv PATH /usr/bin --setenv HOME /tmp');
    expect(args.join(' ')).toContain('--proc /proc --dev /dev --tmpfs /tmp');
    expect(args.join(' ')).toMatch(new RegExp(`--ro-bind ${dir} ${dir} --bind /tmp /tmp --chdir /tmp$`));
    expect(bwrapArgv({ cwd: '/tmp', network: true })).toContain('--share-net');
    expect(bwrapArgv({ cwd: '/tmp' })).not.toContain('--clearenv');
  });

  it('binds all of /etc only when asked (commands), else only /etc/alternatives (skill scripts)', () => {
    expect(bwrapArgv({ cwd: '/tmp', etc: 'all' }).join(' ')).toContain('--ro-bind /etc /etc');
    const bare = bwrapArgv({ cwd: '/tmp' }).join(' ');
    expect(bare).not.toContain('--ro-bind /etc /etc');
    expect(bare).toContain('--ro-bind-try /etc/alternatives /etc/alternatives');
  });

  it('names a bad path and the option it came from', () => {
    expect(() => bwrapArgv({ cwd: 'relative' })).toThrow('bwrap cwd path must be absolute, got "relative"');
    expect(() => bwrapArgv({ cwd: '/tmp', readOnly: ['/nonexistent/qitos'] })).toThrow(
      'bwrap readOnly folder /nonexistent/qitos does not exist',
    );
    expect(() => bwrapArgv({ cwd: '/tmp', writable: ['/nonexistent/qitos'] })).toThrow(
      'bwrap writable folder /nonexistent/qitos does not exist',
    );
  });

  it('findBwrap skips candidates that are missing or do not work', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'bwrap'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    expect(findBwrap([join(dir, 'missing'), join(dir, 'bwrap')])).toBeUndefined();
  });
});

describe.runIf(requires('bwrap'))('a bwrap sandbox (real bubblewrap)', () => {
  const run = (args: string[], command: string, env: Record<string, string> = {}) =>
    runProcess(BWRAP!, [...args, '--', '/bin/sh', '-c', command], {
      cwd: '/',
      env,
      timeoutMs: 20_000,
      maxOutputBytes: 1e6,
    });

  it('clears the environment it was started with: only the given variables reach the process', async () => {
    const r = await run(bwrapArgv({ cwd: '/tmp', env: { ONLY: 'this' } }), 'env | sort', {
      LEAKED_SECRET: 's3cret',
      PATH: '/usr/bin:/bin',
    });
    expect(r.stdout).not.toContain('s3cret');
    expect(r.stdout).toContain('ONLY=this\n');
  });

  it('mounts the writable folder read-write, the read-only one read-only, and nothing else of the host', async () => {
    const base = await tempDir();
    for (const d of ['ro', 'rw', 'hidden']) mkdirSync(join(base, d));
    writeFileSync(join(base, 'hidden/secret'), 'x');
    const r = await run(
      bwrapArgv({ readOnly: [join(base, 'ro')], writable: [join(base, 'rw')], cwd: join(base, 'rw') }),
      `touch ok; touch ${join(base, 'ro')}/no 2>&1; cat ${join(base, 'hidden/secret')} 2>&1; cat /etc/hostname 2>&1; ls ~ 2>&1; pwd`,
    );
    expect(r.stdout).toContain('Read-only file system');
    expect(r.stdout).toMatch(/hidden\/secret: No such file or directory/);
    expect(r.stdout).toMatch(/\/etc\/hostname: No such file or directory/);
    expect(r.stdout.trim().split('\n').at(-1)).toBe(join(base, 'rw'));
  });

  it('has its own PID namespace and no network unless asked', async () => {
    const closed = await run(
      bwrapArgv({ cwd: '/tmp' }),
      'echo $$; cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "',
    );
    expect(closed.stdout.trim().split('\n')).toEqual(['2', 'lo']); // pid 2 under bwrap's init; only a loopback
    const open = await run(bwrapArgv({ cwd: '/tmp', network: true }), 'cat /proc/net/dev | tail -n +3 | wc -l');
    expect(Number(open.stdout.trim())).toBeGreaterThanOrEqual(1);
  });
});
