import { chmodSync, chownSync, existsSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AbortedError } from '../../../src/index.js';
import { SkillsSandboxExecutor, type SkillScriptResult } from '../../../src/envs/sandbox/index.js';
import { tempDir } from '../../helpers/kernel-fixtures.js';
import { requires } from '../../helpers/requires.js';

const hasBwrap = requires('bwrap');
const SECRET = 'hunter2-qitos-test-secret';

/** A skill folder with the given scripts, a workspace, and things outside both an attacker would want. */
async function setup(scripts: Record<string, string>) {
  const base = await tempDir();
  const skillDir = join(base, 'skill');
  const workspace = join(base, 'workspace');
  const home = join(base, 'home');
  const outside = join(base, 'outside');
  for (const d of [join(skillDir, 'scripts'), workspace, join(home, '.ssh'), outside])
    await mkdir(d, { recursive: true });
  writeFileSync(join(skillDir, 'SKILL.md'), '---\nname: t\ndescription: test\n---\n');
  writeFileSync(join(home, '.ssh/id_ed25519'), SECRET);
  for (const [name, text] of Object.entries(scripts)) writeFileSync(join(skillDir, 'scripts', name), text);
  return { skillDir, workspace, home, outside };
}

/** A TCP server on 127.0.0.1 that records every connection: the "open a socket" target. */
let server: Server;
let port: number;
let connections = 0;
const sockets = new Set<Socket>();
beforeAll(async () => {
  server = createServer((s) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  for (const s of sockets) s.destroy();
  return new Promise<void>((r) => server.close(() => r()));
});

/** Node attack scripts: each tries one escape, prints what it got, and lets a refusal crash it. */
const NODE_ATTACKS = (t: { home: string; outside: string; skillDir: string }) => ({
  'read-passwd.mjs': `import fs from 'node:fs'; console.log(fs.readFileSync('/etc/passwd', 'utf8'));`,
  'read-ssh.mjs': `import fs from 'node:fs'; console.log(fs.readFileSync(${JSON.stringify(join(t.home, '.ssh/id_ed25519'))}, 'utf8'));`,
  'write-outside.mjs':
    `import fs from 'node:fs'; fs.writeFileSync(${JSON.stringify(join(t.outside, 'pwned'))}, ` +
    `'x'); console.log('wrote');`,
  'write-skill.mjs': `import fs from 'node:fs'; fs.writeFileSync(${JSON.stringify(join(t.skillDir, 'pwned'))}, 'x'); console.log('wrote');`,
  'spawn.mjs':
    `import { execFileSync } from 'node:child_process'; console.log(execFileSync('/bin/sh', ` +
    `['-c', 'echo spawned'], { encoding: 'utf8' }));`,
  'worker.mjs': `import { Worker } from 'node:worker_threads'; new Worker('1', { eval: true }); console.log('worker started');`,
  'env.mjs': `const v = process.env.QITOS_TEST_SECRET; if (!v) throw new Error('no secret in the environment'); console.log(v);`,
  'socket.mjs':
    `import net from 'node:net'; const s = net.connect(${'PORT'}, '127.0.0.1', () => { ` +
    `s.write('pwned'); console.log('connected'); s.end(); }); s.on('error', (e) => { ` +
    `console.error(e.message); process.exit(2); });`,
});

async function runScript(
  ex: SkillsSandboxExecutor,
  t: { skillDir: string; workspace: string },
  script: string,
  args: unknown = {},
): Promise<SkillScriptResult> {
  return ex.run({ skillDir: t.skillDir, workspace: t.workspace, script: `scripts/${script}`, args });
}

describe.runIf(hasBwrap)('SkillsSandboxExecutor: the escape table', () => {
  describe('Node scripts (bubblewrap + Node permission model)', () => {
    async function attack(name: keyof ReturnType<typeof NODE_ATTACKS>) {
      const t = await setup({});
      const scripts = NODE_ATTACKS(t);
      writeFileSync(join(t.skillDir, 'scripts', name), scripts[name].replace('PORT', String(port)));
      const before = connections;
      process.env.QITOS_TEST_SECRET = SECRET;
      try {
        const r = await runScript(new SkillsSandboxExecutor(), t, name);
        return { r, t, connected: connections - before };
      } finally {
        delete process.env.QITOS_TEST_SECRET;
      }
    }

    it('reading /etc/passwd is refused by the permission model', async () => {
      const { r } = await attack('read-passwd.mjs');
      expect(r.ok).toBe(false);
      expect(r.error).toMatch(
        /^script scripts\/read-passwd\.mjs failed \(exit code 1\)\. The sandbox refused reading outside the skill folder and the workspace \(\/etc\/passwd\)\./,
      );
      expect(r.stdout).not.toMatch(/root:/);
    });

    it('reading ~/.ssh is refused', async () => {
      const { r, t } = await attack('read-ssh.mjs');
      expect(r.error).toContain(
        `The sandbox refused reading outside the skill folder and the workspace (${join(t.home, '.ssh/id_ed25519')})`,
      );
      expect(r.stdout + r.stderr).not.toContain(SECRET);
    });

    it('writing outside the workspace (a folder beside it, the skill folder) is refused', async () => {
      for (const [name, target] of [
        ['write-outside.mjs', 'outside'],
        ['write-skill.mjs', 'skillDir'],
      ] as const) {
        const { r, t } = await attack(name);
        expect(r.error).toContain(`The sandbox refused writing outside the workspace (${join(t[target], 'pwned')})`);
        expect(existsSync(join(t[target], 'pwned'))).toBe(false);
      }
    });

    it('spawning a process is refused', async () => {
      const { r } = await attack('spawn.mjs');
      // Node 24 names the program it refused (resource: '/bin/sh'); Node 22 does not.
      expect(r.error).toMatch(/The sandbox refused starting another process( \(\/bin\/sh\))?\./);
      expect(r.stdout).not.toContain('spawned');
    });

    it('starting a worker thread is refused', async () => {
      const { r } = await attack('worker.mjs');
      expect(r.error).toContain('The sandbox refused starting a worker thread.');
    });

    it('a secret environment variable of the host is not there', async () => {
      const { r } = await attack('env.mjs');
      expect(r.error).toContain('no secret in the environment');
      expect(r.stdout + r.stderr).not.toContain(SECRET);
    });

    it('opening a socket to a server on the host finds no network', async () => {
      const { r, connected } = await attack('socket.mjs');
      expect(r.error).toMatch(/failed \(exit code 2\)\. The sandbox has no network\./);
      expect(connected).toBe(0);
      expect(r.sandbox).toEqual({ layers: ['bwrap', 'limits', 'node-permission'], missing: [] });
    });
  });

  describe('Python and shell scripts (bubblewrap)', () => {
    const PY = (t: { home: string; outside: string }) => ({
      'read-passwd.py': `print(open('/etc/passwd').read())`,
      'read-ssh.py': `print(open(${JSON.stringify(join(t.home, '.ssh/id_ed25519'))}).read())`,
      'write-outside.py': `open(${JSON.stringify(join(t.outside, 'pwned'))}, 'w').write('x')`,
      'spawn.py': `import subprocess; subprocess.run(['cat', ${JSON.stringify(join(t.home, '.ssh/id_ed25519'))}], check=True)`,
      'env.py': `import os; print(os.environ['QITOS_TEST_SECRET'])`,
      'socket.py': `import socket; s = socket.create_connection(('127.0.0.1', PORT), timeout=5); s.sendall(b'pwned'); print('connected')`,
    });

    it.each([
      ['read-passwd.py', /No such file or directory: '\/etc\/passwd'/],
      ['read-ssh.py', /No such file or directory/],
      ['write-outside.py', /No such file or directory|Read-only file system/],
      ['spawn.py', /No such file or directory/], // the child runs in the same sandbox
      ['env.py', /KeyError: 'QITOS_TEST_SECRET'/],
      ['socket.py', /Network is unreachable|Connection refused/],
    ])('%s is refused', async (name, message) => {
      const t = await setup({});
      writeFileSync(
        join(t.skillDir, 'scripts', name),
        PY(t)[name as keyof ReturnType<typeof PY>].replace('PORT', String(port)),
      );
      const before = connections;
      process.env.QITOS_TEST_SECRET = SECRET;
      const r = await runScript(new SkillsSandboxExecutor(), t, name).finally(
        () => delete process.env.QITOS_TEST_SECRET,
      );
      expect(r.ok).toBe(false);
      expect(r.stderr).toMatch(message);
      expect(r.stdout + r.stderr).not.toContain(SECRET);
      expect(r.stdout).not.toMatch(/root:|connected/);
      expect(connections - before).toBe(0);
      expect(existsSync(join(t.outside, 'pwned'))).toBe(false);
      expect(r.sandbox.layers).toEqual(['bwrap', 'limits']);
    });

    it('a shell script sees only the system, the skill folder and the workspace, and writes only the workspace', async () => {
      const t = await setup({});
      writeFileSync(
        join(t.skillDir, 'scripts/probe.sh'),
        [
          `ls /etc/passwd ${join(t.home, '.ssh')} 2>&1`,
          `echo x > ${join(t.outside, 'pwned')} 2>&1`,
          `echo x > ${join(t.skillDir, 'pwned')} 2>&1`,
          'echo ok > made.txt',
          'pwd',
          'env | sort',
          'true',
        ].join('\n'),
      );
      const r = await runScript(new SkillsSandboxExecutor(), t, 'probe.sh');
      expect(r.ok).toBe(true);
      const out = r.stdout + r.stderr;
      expect(out).toMatch(/\/etc\/passwd.*No such file/);
      expect(out).toMatch(/\.ssh.*No such file/);
      expect(out).toContain(`cannot create ${join(t.outside, 'pwned')}: Directory nonexistent`);
      expect(out).toContain(`cannot create ${join(t.skillDir, 'pwned')}: Read-only file system`);
      expect(out).toContain(`${t.workspace}\n`);
      expect(out).toContain(`HOME=${t.workspace}\nLANG=C.UTF-8\nPATH=/usr/bin:/bin\nPWD=${t.workspace}\n`);
      expect(existsSync(join(t.workspace, 'made.txt'))).toBe(true);
    });
  });
});

describe('SkillsSandboxExecutor: without bubblewrap', () => {
  it('Node scripts still run under the permission model, and the result says the network is not isolated', async () => {
    const t = await setup({});
    const scripts = NODE_ATTACKS(t);
    writeFileSync(join(t.skillDir, 'scripts/read-passwd.mjs'), scripts['read-passwd.mjs']);
    writeFileSync(join(t.skillDir, 'scripts/socket.mjs'), scripts['socket.mjs'].replace('PORT', String(port)));
    writeFileSync(join(t.skillDir, 'scripts/env.mjs'), scripts['env.mjs']);
    const ex = new SkillsSandboxExecutor({ bwrap: false });
    const read = await runScript(ex, t, 'read-passwd.mjs');
    expect(read.error).toContain(
      'The sandbox refused reading outside the skill folder and the workspace (/etc/passwd)',
    );
    process.env.QITOS_TEST_SECRET = SECRET;
    const env = await runScript(ex, t, 'env.mjs').finally(() => delete process.env.QITOS_TEST_SECRET);
    expect(env.error).toContain('no secret in the environment');
    // the honest part: no network namespace, so the connection goes through, and the result says so
    const before = connections;
    const sock = await runScript(ex, t, 'socket.mjs');
    expect(sock.ok).toBe(true);
    expect(connections - before).toBe(1);
    expect(sock.sandbox).toEqual({
      layers: ['limits', 'node-permission'],
      missing: [
        expect.stringMatching(/^network isolation: bubblewrap is not available/),
        expect.stringMatching(/^process namespaces/),
      ],
    });
  });

  it('Python and shell scripts are refused: there is no sandbox to run them in', async () => {
    const t = await setup({ 'a.py': 'print(1)', 'b.sh': 'echo 1' });
    const ex = new SkillsSandboxExecutor({ bwrap: false });
    await expect(runScript(ex, t, 'a.py')).rejects.toThrow(
      'cannot run scripts/a.py: Python skill scripts run only inside the bubblewrap sandbox, ' +
        'and no working bwrap was found (install the Debian/Ubuntu package "bubblewrap")',
    );
    await expect(runScript(ex, t, 'b.sh')).rejects.toThrow(
      /shell skill scripts run only inside the bubblewrap sandbox/,
    );
  });
});

describe('SkillsSandboxExecutor: arguments, output and limits', () => {
  it.runIf(hasBwrap)(
    'passes JSON arguments on stdin and parses JSON output; other output stays text; the workspace is the cwd',
    async () => {
      const t = await setup({
        'double.mjs':
          `import fs from 'node:fs'; const a = JSON.parse(fs.readFileSync(0, 'utf8')); ` +
          `console.log(JSON.stringify({ doubled: a.n * 2, cwd: process.cwd() }));`,
        'hello.py': `import json, sys; a = json.load(sys.stdin); print('hello ' + a['name'])`,
        'execute.sh': `cat; echo`,
      });
      const ex = new SkillsSandboxExecutor();
      expect((await runScript(ex, t, 'double.mjs', { n: 21 })).output).toEqual({ doubled: 42, cwd: t.workspace });
      expect(await runScript(ex, t, 'hello.py', { name: 'qitos' })).toMatchObject({
        ok: true,
        output: 'hello qitos\n',
        exitCode: 0,
      });
      // no script named: scripts/execute.*
      expect((await ex.run({ skillDir: t.skillDir, workspace: t.workspace, args: { a: [1] } })).output).toEqual({
        a: [1],
      });
    },
  );

  it('a failing script is a result with its exit code and the end of its stderr', async () => {
    const t = await setup({ 'fail.mjs': `console.error('bad input: n is missing'); process.exit(4);` });
    const r = await runScript(new SkillsSandboxExecutor(), t, 'fail.mjs');
    expect(r).toMatchObject({
      ok: false,
      exitCode: 4,
      error: 'script scripts/fail.mjs failed (exit code 4).\nstderr:\nbad input: n is missing',
    });
  });

  it.runIf(hasBwrap)('stops a script at its time limit and at its output cap', async () => {
    const t = await setup({
      'hang.mjs': 'setInterval(() => {}, 1000);',
      'spew.py': "import sys\nwhile True: sys.stdout.write('x' * 65536)",
    });
    const slow = await runScript(new SkillsSandboxExecutor({ timeoutMs: 1500 }), t, 'hang.mjs');
    expect(slow).toMatchObject({
      ok: false,
      timedOut: true,
      error: 'script scripts/hang.mjs was stopped after 1.5 s (time limit).',
    });
    const loud = await runScript(new SkillsSandboxExecutor({ maxOutputBytes: 100_000 }), t, 'spew.py');
    expect(loud).toMatchObject({
      ok: false,
      truncated: true,
      error: expect.stringMatching(
        /^script scripts\/spew\.py was stopped: it printed more than 100000 bytes \(output limit\)\./,
      ),
    });
    expect(loud.stdout.length).toBe(100_000);
  });

  it('an aborted run kills the script and rejects', async () => {
    const t = await setup({ 'hang.mjs': 'setInterval(() => {}, 1000);' });
    const ctl = new AbortController();
    const p = new SkillsSandboxExecutor().run({
      skillDir: t.skillDir,
      workspace: t.workspace,
      script: 'scripts/hang.mjs',
      signal: ctl.signal,
    });
    setTimeout(() => ctl.abort(), 300);
    await expect(p).rejects.toBeInstanceOf(AbortedError);
  });

  it("runs only scripts inside the skill's scripts/ folder", async () => {
    const t = await setup({ 'ok.mjs': '', 'x.rb': 'puts 1' });
    writeFileSync(join(t.outside, 'evil.mjs'), 'console.log(1)');
    symlinkSync(join(t.outside, 'evil.mjs'), join(t.skillDir, 'scripts/link.mjs'));
    const ex = new SkillsSandboxExecutor();
    const run = (script: string) => ex.run({ skillDir: t.skillDir, workspace: t.workspace, script });
    // A bare name is a file of scripts/ (what a model writes after reading the listing), never the skill's other files.
    await expect(run('SKILL.md')).rejects.toThrow(
      'the skill has no script "scripts/SKILL.md"; its scripts: scripts/ok.mjs',
    );
    await expect(run('ok.mjs')).resolves.toMatchObject({ ok: true });
    await expect(run('./SKILL.md')).rejects.toThrow(
      '"./SKILL.md" is not in the skill\'s scripts/ folder; only scripts there can be run',
    );
    await expect(run('scripts/../SKILL.md')).rejects.toThrow(/is not in the skill's scripts\/ folder/);
    await expect(run(join(t.outside, 'evil.mjs'))).rejects.toThrow(/is not in the skill's scripts\/ folder/);
    await expect(run('scripts/link.mjs')).rejects.toThrow(
      '"scripts/link.mjs" links outside the skill\'s scripts/ folder',
    );
    await expect(run('scripts/x.rb')).rejects.toThrow(
      '"scripts/x.rb" is not a runnable script: use .mjs, .js, .cjs, .py or .sh',
    );
    await expect(run('scripts/nope.mjs')).rejects.toThrow(
      'the skill has no script "scripts/nope.mjs"; its scripts: scripts/ok.mjs',
    );
    await expect(ex.run({ skillDir: t.skillDir, workspace: t.workspace })).rejects.toThrow(
      'this skill has no scripts/execute.* to run by default; name one of its scripts: scripts/ok.mjs',
    );
    await expect(
      ex.run({ skillDir: t.skillDir, workspace: join(t.outside, 'nope'), script: 'scripts/ok.mjs' }),
    ).rejects.toThrow(`workspace ${join(t.outside, 'nope')} does not exist`);
  });
});

describe.runIf(hasBwrap && requires('prlimit'))(
  "SkillsSandboxExecutor: resource limits (the bash tool's, with prlimit)",
  () => {
    it('a script that allocates 3 GiB fails at the memory limit (Python and Node)', async () => {
      const t = await setup({
        'hog.py': 'b = bytearray(3 * 1024 ** 3)\nprint(len(b))',
        'hog.mjs': 'const b = Buffer.alloc(3 * 1024 ** 3, 1); console.log(b.length);',
      });
      const ex = new SkillsSandboxExecutor();
      for (const script of ['hog.py', 'hog.mjs']) {
        const r = await runScript(ex, t, script);
        expect(r.ok, script).toBe(false);
        expect(r.stdout, script).toBe('');
        expect(r.error, script).toContain('It passed the memory limit (2048 MiB per process).');
      }
      expect((await runScript(ex, t, 'hog.py')).sandbox).toEqual({ layers: ['bwrap', 'limits'], missing: [] });
    });

    it('a file write over the cap fails; the cap is configurable', async () => {
      const t = await setup({
        'big.py': 'with open("big.bin", "wb") as f:\n    f.write(b"x" * (3 * 1024 * 1024))\nprint("wrote")',
      });
      const r = await runScript(new SkillsSandboxExecutor({ limits: { fileSizeBytes: 1024 * 1024 } }), t, 'big.py');
      expect(r).toMatchObject({ ok: false, stdout: '' });
      expect(r.error).toContain('It passed the file size limit (1 MiB per file).');
      expect(statSync(join(t.workspace, 'big.bin')).size).toBeLessThanOrEqual(1024 * 1024);
      expect(await runScript(new SkillsSandboxExecutor(), t, 'big.py')).toMatchObject({ ok: true, output: 'wrote\n' });
    });

    it('a fork bomb is capped at the process limit', async () => {
      // The kernel never applies RLIMIT_NPROC to root: as root the scripts run as nobody, who must reach the folders.
      const t = await setup({
        'bomb.sh':
          'ok=0; fail=0; for i in $(seq 50); do if sleep 3 2>/dev/null & then ok=$((ok+1)); else ' +
          'fail=$((fail+1)); fi; done; echo "$ok $fail"; wait',
      });
      const asRoot = process.getuid?.() === 0;
      if (asRoot) {
        for (const d of [dirname(t.skillDir), t.skillDir, join(t.skillDir, 'scripts')]) chmodSync(d, 0o755);
        chownSync(t.workspace, 65534, 65534);
      }
      const ex = new SkillsSandboxExecutor({
        limits: { processes: 20 },
        ...(asRoot ? { user: { uid: 65534, gid: 65534 } } : {}),
      });
      const r = await runScript(ex, t, 'bomb.sh');
      const [ok] = r.stdout.trim().split(' ').map(Number);
      expect(ok).toBeLessThan(20);
      expect(r.stderr + (r.error ?? '')).toMatch(/Resource temporarily unavailable|fork|Cannot fork/i);
    });

    it('limits are checked: a limit that is not a positive integer is an error naming it', () => {
      expect(() => new SkillsSandboxExecutor({ limits: { memoryBytes: 0 } })).toThrow(
        'sandbox limit memoryBytes must be a positive integer, got 0',
      );
    });
  },
);
