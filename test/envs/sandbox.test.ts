import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AbortedError, decide } from '../../src/core/index.js';
import { Engine } from '../../src/engine/engine.js';
import { HostEnv, Sandbox, runProcess } from '../../src/envs/index.js';
import { readTrace } from '../../src/trace/trace-reader.js';
import { fileTree } from '../helpers/file-tree.js';
import { eventually, processesWithArg } from '../helpers/host-processes.js';
import { tempWorkspace } from '../helpers/qitos-env-fixtures.js';
import { ScriptAgent } from '../helpers/kernel-fixtures.js';
import { requires } from '../helpers/requires.js';

const repo = path.resolve(__dirname, '../..');
let base: string;
let root: string;
let outside: string;
let env: HostEnv;
const hasBwrap = requires('bwrap');

beforeAll(() => {
  ({ base, root, outside } = tempWorkspace('qitos-sandbox-', { 'secret.txt': 'outside secret' }));
  // Required, not auto: on a machine without bubblewrap these tests must skip (fail under CI), never run their
  // escapes for real (an unsandboxed `echo x > /etc/qitos-test` as root wrote to the host once).
  if (hasBwrap) env = new HostEnv({ root, sandbox: 'bwrap' });
});

afterAll(() => {
  env?.close();
  rmSync(base, { recursive: true, force: true });
});

describe.runIf(hasBwrap)('bubblewrap on this machine', () => {
  it('works here (CI installs the bubblewrap package), so HostEnv sandboxes commands by default', () => {
    // No skip: a machine where this fails says why in the message.
    expect(new Sandbox({ mode: 'bwrap' }).kind).toBe('bwrap');
    const byDefault = new HostEnv({ root });
    expect(byDefault.sandbox).toBe('bwrap');
    expect(byDefault.sandboxNote).toBeUndefined();
    byDefault.close();
  });
});

describe.runIf(hasBwrap)('a sandboxed command', () => {
  it('runs in the workspace with the cleared environment and sees its output, exit code and stdin', async () => {
    const r = await env.processes!.run('pwd; echo "$HOME"; cat; echo err >&2; exit 3', { stdin: 'in\n' });
    expect(r).toMatchObject({ exitCode: 3, stdout: `${root}\n${root}\nin\n`, stderr: 'err\n', timedOut: false });
  });

  it("cannot read the parent's environment through /proc (own PID namespace and /proc)", () => {
    const run = (mode: string) =>
      JSON.parse(
        execFileSync(
          process.execPath,
          [
            '--import',
            path.join(repo, 'node_modules/tsx/dist/loader.mjs'),
            path.join(repo, 'test/fixtures/run-command.ts'),
            root,
            mode,
            'cat /proc/$PPID/environ | tr "\\0" "\\n"; echo; ls /proc | grep -c "^[0-9]"',
          ],
          {
            env: { ...process.env, QITOS_PARENT_SECRET: 'parent-secret-value' },
            encoding: 'utf8',
          },
        ),
      );
    const boxed = run('auto');
    expect(boxed.sandbox).toBe('bwrap');
    expect(boxed.stdout).not.toContain('parent-secret-value');
    expect(Number(boxed.stdout.trim().split('\n').at(-1))).toBeLessThan(10); // only its own few processes
    // Without the sandbox the same command reads it: this is what the sandbox closes.
    const bare = run('none');
    expect(bare.sandbox).toBe('none');
    expect(bare.stdout).toContain('QITOS_PARENT_SECRET=parent-secret-value');
  });

  it('can write only in the workspace: the rest of the host is read-only or absent', async () => {
    const before = fileTree(outside);
    const r = await env.processes!.run(
      `echo ok > inside.txt; echo x > ${outside}/new.txt; echo x > /etc/qitos-test; echo x > ` +
        `/usr/qitos-test; cat ${outside}/secret.txt; ls /root; echo done`,
    );
    expect(readFileSync(path.join(root, 'inside.txt'), 'utf8')).toBe('ok\n');
    expect(r.stdout).toBe('done\n');
    expect(r.stderr).toMatch(/new\.txt: No such file or directory/);
    expect(r.stderr).toMatch(/\/etc\/qitos-test: Read-only file system/);
    expect(r.stderr).toMatch(/\/usr\/qitos-test: Read-only file system/);
    expect(r.stderr).toMatch(/secret\.txt: No such file or directory/);
    expect(fileTree(outside)).toEqual(before);
    expect(() => statSync('/etc/qitos-test')).toThrow();
  });

  it('has no network unless allowed', async () => {
    let connections = 0;
    const server: Server = createServer((s) => {
      connections++;
      s.end('hello\n');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const cmd = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -c 6 <&3`;
      const closed = await env.processes!.run(cmd);
      expect(closed.exitCode).not.toBe(0);
      expect(connections).toBe(0);
      const open = new HostEnv({ root, sandbox: { network: true } });
      const r = await open.processes!.run(cmd);
      open.close();
      expect(r.stdout).toBe('hello\n');
      expect(connections).toBe(1);
    } finally {
      server.close();
    }
  });

  it('ends with every process it started: at the timeout, on abort, and when it exits (no background survivors)', async () => {
    const t = `31.${process.pid}`;
    // setsid leaves the process group: only the PID namespace catches it.
    const timedOut = await env.processes!.run(`sleep ${t}1 & setsid sleep ${t}2 & sleep ${t}3`, { timeoutMs: 500 });
    expect(timedOut.timedOut).toBe(true);
    expect(await eventually(() => [1, 2, 3].every((i) => processesWithArg(`${t}${i}`).length === 0))).toBe(true);

    const ac = new AbortController();
    const p = env.processes!.run(`setsid sleep ${t}4 & sleep ${t}5`, { signal: ac.signal });
    expect(await eventually(() => processesWithArg(`${t}5`).length === 1)).toBe(true);
    ac.abort();
    await expect(p).rejects.toBeInstanceOf(AbortedError);
    expect(await eventually(() => processesWithArg(`${t}4`).length + processesWithArg(`${t}5`).length === 0)).toBe(
      true,
    );

    const bg = await env.processes!.run(`sleep ${t}6 > /dev/null 2>&1 & echo started`);
    expect(bg).toMatchObject({ exitCode: 0, stdout: 'started\n', timedOut: false });
    expect(await eventually(() => processesWithArg(`${t}6`).length === 0)).toBe(true);
  });
});

describe.runIf(hasBwrap && requires('prlimit'))('limits', () => {
  it('caps the size of a file a command writes', async () => {
    const small = new HostEnv({ root, sandbox: { limits: { fileSizeBytes: 100_000 } } });
    const r = await small.processes!.run('head -c 1000000 /dev/zero > big.bin; echo "exit $?"');
    small.close();
    expect(r.stdout).toMatch(/^exit (153|1)\n$/); // 128 + SIGXFSZ, or a write error
    expect(statSync(path.join(root, 'big.bin')).size).toBe(100_000);
  });

  it('caps the memory a process allocates (2 GiB by default)', async () => {
    const r = await env.processes!.run(
      'perl -e \'my $x = "x" x (3 * 1024 ** 3); print length($x), "\\n"\' ; echo "exit $?"',
    );
    expect(r.stdout).not.toMatch(/^3221225472$/m);
    expect(r.stdout + r.stderr).toMatch(/Out of memory|exit [1-9]/);
    const small = new HostEnv({ root, sandbox: { limits: { memoryBytes: 64 * 1024 ** 2 } } });
    const s = await small.processes!.run(
      'perl -e \'my $x = "x" x (200 * 1024 ** 2); print "allocated\\n"\'; echo "exit $?"',
    );
    small.close();
    expect(s.stdout).not.toContain('allocated');
  });

  it('caps CPU time per process', async () => {
    const cpu = new HostEnv({ root, sandbox: { limits: { cpuSeconds: 1 } } });
    const t0 = Date.now();
    const r = await cpu.processes!.run('while :; do :; done', { timeoutMs: 20_000 });
    cpu.close();
    expect(r.timedOut).toBe(false);
    expect(r.exitCode === 137 || r.exitCode === 152 || r.signal !== null).toBe(true); // SIGKILL / SIGXCPU
    expect(Date.now() - t0).toBeLessThan(15_000);
  });

  it.runIf(requires('perl'))('caps the number of processes (a fork bomb stops at the limit)', async () => {
    // The kernel never applies RLIMIT_NPROC to root, so as root the command runs as nobody (uid 65534), in a
    // workspace that user owns; as any other user it runs as that user.
    const asRoot = process.getuid?.() === 0;
    // The temp folders are private (0700): nobody needs a folder it can reach.
    const ws = realpathSync(mkdtempSync(path.join(tmpdir(), 'qitos-nproc-')));
    if (asRoot) chownSync(ws, 65534, 65534);
    const sandbox = new Sandbox({ limits: { processes: 20 } });
    const fork50 =
      'my ($ok, $fail) = (0, 0); for (1..50) { my $p = fork; if (!defined $p) { $fail++ } elsif ' +
      '($p == 0) { sleep 2; exit } else { $ok++ } } print "$ok $fail\\n"';
    const cmd = sandbox.command(['perl', '-e', fork50], { cwd: ws, writable: [ws] });
    const r = await runProcess(cmd.file, cmd.args, {
      cwd: ws,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      timeoutMs: 20_000,
      maxOutputBytes: 4096,
      ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
    });
    rmSync(ws, { recursive: true, force: true });
    expect(r.stderr).toBe('');
    const [ok, fail] = r.stdout.trim().split(' ').map(Number);
    expect(ok).toBeLessThan(20);
    expect(fail).toBeGreaterThan(30);
  });
});

describe('Sandbox', () => {
  it('mode auto without a working bubblewrap runs commands unsandboxed and says why; mode bwrap refuses', async () => {
    const missing = new Sandbox({ bwrap: '/nonexistent/bwrap' });
    expect(missing.kind).toBe('none');
    expect(missing.note).toMatch(
      /commands run without a sandbox: "\/nonexistent\/bwrap" was not found \(install the bubblewrap package\)/,
    );
    expect(() => new HostEnv({ root, sandbox: { mode: 'bwrap', bwrap: '/nonexistent/bwrap' } })).toThrow(
      /sandbox mode "bwrap" was asked for, but "\/nonexistent\/bwrap" was not found/,
    );
    const bare = new HostEnv({ root, sandbox: missing });
    expect(bare.sandbox).toBe('none');
    expect((await bare.processes!.run('echo hi')).stdout).toBe('hi\n');
    bare.close();
    expect(new Sandbox({ mode: 'none' }).note).toBeUndefined();
    expect(() => new Sandbox({ limits: { processes: 0 } })).toThrow(/processes must be a positive integer/);
  });

  it.runIf(hasBwrap)("the trace manifest records the sandbox of the run's env", async () => {
    const traces = path.join(base, 'traces');
    for (const [mode, kind] of [
      ['auto', 'bwrap'],
      ['none', 'none'],
    ] as const) {
      const e = new HostEnv({ root, sandbox: mode });
      const r = await new Engine({ agent: new ScriptAgent([decide.final('x')]), env: e, trace: { dir: traces } }).run(
        't',
      );
      expect((await readTrace(r.traceDir!)).manifest.env).toEqual({ name: 'host', sandbox: kind });
    }
    const filesOnly = new HostEnv({ root, process: false });
    const r = await new Engine({
      agent: new ScriptAgent([decide.final('x')]),
      env: filesOnly,
      trace: { dir: traces },
    }).run('t');
    expect((await readTrace(r.traceDir!)).manifest.env).toEqual({ name: 'host' });
  });
});
