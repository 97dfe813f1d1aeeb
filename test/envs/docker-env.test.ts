import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine, type FileOps } from '../../src/index.js';
import { ScriptedModel } from '../../src/models/index.js';
import { jsonParser } from '../../src/kit/parsers/index.js';
import { DockerEnv, HostEnv } from '../../src/envs/index.js';
import { bashTool, readTool, writeTool } from '../../src/kit/tools/index.js';
import { fakeDocker, type FakeDocker } from '../helpers/fake-docker.js';
import { ModelPathAgent, tempDir } from '../helpers/kernel-fixtures.js';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
function docker(): FakeDocker {
  const d = fakeDocker();
  cleanups.push(d.cleanup);
  return d;
}
function env(options: ConstructorParameters<typeof DockerEnv>[0]): DockerEnv {
  const e = new DockerEnv(options);
  cleanups.push(() => e.close());
  return e;
}
function tmp(): string {
  const d = realpathSync(mkdtempSync(path.join(tmpdir(), 'qitos-docker-test-')));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

describe('DockerEnv with a fake docker CLI', () => {
  it('starts a fresh container per run with no network, works in it through docker exec, and removes it at close', async () => {
    const d = docker();
    const e = env({ image: 'python:3.12-slim', docker: d.bin, runArgs: ['--memory', '1g'], env: { LANG: 'C.UTF-8' } });
    expect(e.ops('file')).toBeUndefined(); // nothing before setup
    await e.setup();
    const id = e.container!;
    const [info, run, mkdir] = d.calls();
    expect(info).toEqual(['info', '--format', '{{.ServerVersion}}']);
    expect(run).toEqual([
      'run',
      '--detach',
      '--init',
      '--name',
      id,
      '--label',
      'qitos.env=docker',
      '--network',
      'none',
      '--workdir',
      '/workspace',
      '--memory',
      '1g',
      '--entrypoint',
      'tail',
      'python:3.12-slim',
      '-f',
      '/dev/null',
    ]);
    expect(mkdir).toEqual(['exec', '-w', '/', id, 'mkdir', '-p', 'workspace']);

    await e.files.writeText('src/app.py', 'print("hi")\n');
    expect(readFileSync(d.hostPath(id, '/workspace/src/app.py'), 'utf8')).toBe('print("hi")\n');
    expect(await e.files.readText('src/app.py')).toBe('print("hi")\n');
    const r = await e.processes.run('cat app.py && echo "$LANG $EXTRA" && pwd', { cwd: 'src', env: { EXTRA: 'x' } });
    expect(r).toMatchObject({
      exitCode: 0,
      stdout: `print("hi")\nC.UTF-8 x\n${d.hostPath(id, '/workspace/src')}\n`,
      timedOut: false,
    });
    // Commands and file ops are argument lists: the command text is one argument, never spliced into a script.
    const exec = d.calls().find((c) => c.includes('cat app.py && echo "$LANG $EXTRA" && pwd'))!;
    expect(exec.slice(0, 8)).toEqual(['exec', '-i', '-e', 'LANG=C.UTF-8', '-e', 'EXTRA=x', '-w', '/workspace']);
    expect(exec.slice(-2)).toEqual(['./src', 'cat app.py && echo "$LANG $EXTRA" && pwd']);
    // The host environment never reaches a command.
    process.env.QITOS_SECRET_FOR_TEST = 'leak';
    cleanups.push(() => void delete process.env.QITOS_SECRET_FOR_TEST);
    expect((await e.processes.run('echo "[$QITOS_SECRET_FOR_TEST]"')).stdout).toBe('[]\n');

    await e.close();
    expect(d.calls().at(-1)).toEqual(['rm', '--force', id]);
    expect(existsSync(path.join(d.root, 'containers', id))).toBe(false);
    expect(e.ops('process')).toBeUndefined();
  });

  it('file ops give the same answers and errors as a HostEnv, for random operations', async () => {
    const d = docker();
    const e = env({ image: 'img', docker: d.bin, opTimeoutMs: 20_000 });
    await e.setup();
    const hostRoot = tmp();
    const host = new HostEnv({ root: hostRoot });
    const name = fc.constantFrom(
      'a.txt',
      'd/b.txt',
      'd/e/c.ts',
      'd',
      'd/e',
      '.hid/x.ts',
      'node_modules/m/i.ts',
      'sp ace.md',
      '../out.txt',
      'd/../a.txt',
      '-n',
      'q\'uote".txt',
    );
    const op = fc.oneof(
      fc.record({ op: fc.constant('write'), path: name, text: fc.string({ maxLength: 12 }) }),
      fc.record({ op: fc.constantFrom('read', 'stat', 'list', 'remove', 'removeAll'), path: name }),
      fc.record({
        op: fc.constant('glob'),
        path: fc.constantFrom('**/*.ts', '*', 'd/**', '.hid/**', 'node_modules/**/*.ts', '**/*'),
      }),
    );
    const apply = async (ops: FileOps, o: { op: string; path: string; text?: string }) => {
      try {
        switch (o.op) {
          case 'write':
            return await ops.writeText(o.path, o.text!);
          case 'read':
            return await ops.readText(o.path);
          case 'stat': {
            const s = await ops.stat(o.path);
            return s && { path: s.path, type: s.type, size: s.type === 'file' ? s.size : 0 };
          }
          case 'list':
            return (await ops.list(o.path)).map((s) => [s.path, s.type, s.type === 'file' ? s.size : 0]);
          case 'remove':
            return await ops.remove(o.path);
          case 'removeAll':
            return await ops.remove(o.path, { recursive: true });
          default:
            return await ops.glob(o.path);
        }
      } catch (err) {
        return `error: ${(err as Error).message.replaceAll(hostRoot, '<root>').replaceAll('/workspace', '<root>')}`;
      }
    };
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 6 }), async (ops) => {
        for (const o of ops) expect(await apply(e.files, o), JSON.stringify(o)).toEqual(await apply(host.files, o));
      }),
      { numRuns: 20 },
    );
  }, 120_000);

  it('a timed-out command is killed inside the container too, with its children', async () => {
    const d = docker();
    const e = env({ image: 'img', docker: d.bin });
    await e.setup();
    const marker = d.hostPath(e.container!, '/workspace/late.txt');
    const r = await e.processes.run('(sleep 1; echo late > late.txt) & sleep 30', { timeoutMs: 400 });
    expect(r.timedOut).toBe(true);
    const kill = d.calls().at(-1)!;
    expect(kill.slice(0, 4)).toEqual(['exec', e.container, 'sh', '-c']);
    expect(kill[4]).toContain('kill -s KILL -- "-$k"');
    await new Promise((res) => setTimeout(res, 1500));
    expect(existsSync(marker)).toBe(false); // the background child died with the group
  });

  it('runs an agent in the engine: tools act inside the container; a missing folder is an error result', async () => {
    const d = docker();
    const e = env({ image: 'img', docker: d.bin });
    const dir = await tempDir();
    const model = new ScriptedModel([
      '{"action": {"name": "write", "args": {"path": "out/answer.txt", "content": "42\\n"}}}',
      '{"action": {"name": "bash", "args": {"command": "cat out/answer.txt"}}}',
      '{"action": {"name": "bash", "args": {"command": "ls", "cwd": "nope"}}}',
      '{"action": {"name": "read", "args": {"path": "out/answer.txt"}}}',
      '{"final_answer": "42"}',
    ]);
    const agent = new ModelPathAgent({ model, parser: jsonParser(), tools: [writeTool(), bashTool(), readTool()] });
    const r = await new Engine({ agent, env: e, trace: { dir } }).run('write the answer');
    expect(r.stopReason, r.stopMessage).toBe('final');
    const results = r.state.messages.flatMap((m) => m.parts).filter((p) => p.type === 'tool');
    expect(results).toHaveLength(4);
    expect(JSON.stringify(results[1])).toContain('42\\n[exit code 0]');
    expect(JSON.stringify(results[2])).toContain(
      'cannot run in \\"nope\\": it is not an existing folder in the workspace',
    );
    expect(JSON.stringify(results[3])).toContain('1\\t42');
    expect(d.calls().at(-1)?.[0]).toBe('rm'); // the engine's close removed the container
  });

  it('copies a host folder in, mounts one, resets to a fresh container, attaches to an existing one', async () => {
    const d = docker();
    const seed = tmp();
    mkdirSync(path.join(seed, 'pkg'));
    writeFileSync(path.join(seed, 'pkg', 'm.py'), 'x = 1\n');
    const e = env({ image: 'img', docker: d.bin, copyFrom: seed });
    await e.setup();
    expect(await e.files.readText('pkg/m.py')).toBe('x = 1\n');
    const first = e.container!;
    await e.files.writeText('pkg/m.py', 'changed');
    await e.reset();
    expect(e.container).not.toBe(first);
    expect(await e.files.readText('pkg/m.py')).toBe('x = 1\n');
    expect(
      d
        .calls()
        .filter((c) => c[0] === 'rm')
        .map((c) => c[2]),
    ).toEqual([first]);

    const mounted = tmp();
    const m = env({ image: 'img', docker: d.bin, mount: mounted, workdir: '/src' });
    await m.setup();
    expect(d.calls().find((c) => c[0] === 'run' && c.includes(`${mounted}:/src`))).toBeDefined();
    await m.files.writeText('on-host.txt', 'yes');
    expect(readFileSync(path.join(mounted, 'on-host.txt'), 'utf8')).toBe('yes');

    const attached = env({ container: first === e.container ? first : e.container!, docker: d.bin });
    await attached.setup();
    expect(await attached.files.readText('pkg/m.py')).toBe('x = 1\n');
    await expect(attached.reset()).rejects.toThrow(/belongs to the user and cannot be reset/);
    const before = d.calls().length;
    await attached.close();
    expect(
      d
        .calls()
        .slice(before)
        .some((c) => c[0] === 'rm'),
    ).toBe(false); // never removes a user's container
  });

  it('says what is missing: no docker CLI, no engine, a bad image, a stopped container, bad options', async () => {
    await expect(env({ image: 'img', docker: '/nonexistent/docker' }).setup()).rejects.toThrow(
      'DockerEnv needs the docker CLI: "/nonexistent/docker" was not found on PATH (install Docker, or pass docker: "/path/to/docker")',
    );
    const d = docker();
    d.setEngine('down');
    await expect(env({ image: 'img', docker: d.bin }).setup()).rejects.toThrow(
      'DockerEnv: the docker CLI is present but no docker engine answers ("docker info" failed: ' +
        'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon ' +
        'running?)',
    );
    d.setEngine('up');
    await expect(env({ image: 'missing:image', docker: d.bin }).setup()).rejects.toThrow(
      /^DockerEnv: cannot start a container from image missing:image: Unable to find image/,
    );
    await expect(env({ container: 'gone', docker: d.bin }).setup()).rejects.toThrow(
      'DockerEnv: cannot use container gone: Error: No such object: gone',
    );
    expect(() => new DockerEnv({} as never)).toThrow(/needs an image or a container/);
    expect(() => new DockerEnv({ image: 'a', container: 'b' })).toThrow(/not both/);
    expect(() => new DockerEnv({ container: 'b', network: 'host' })).toThrow(/apply to a container the env starts/);
    expect(() => new DockerEnv({ image: 'a', workdir: 'rel' })).toThrow(/absolute folder/);
    expect(() => new DockerEnv({ image: 'a', workdir: '/' })).toThrow(/other than "\/"/);
    expect(() => new DockerEnv({ image: 'a', copyFrom: '/nonexistent-qitos' })).toThrow(
      /copyFrom \/nonexistent-qitos is not a folder/,
    );
    const e = env({ image: 'img', docker: d.bin });
    await e.setup();
    await expect(e.processes.run('true', { env: { 'BAD NAME': 'x' } })).rejects.toThrow(
      /environment variable name "BAD NAME" is not valid/,
    );
    // In the engine, setup failing ends the run with the reason.
    d.setEngine('down');
    const r = await new Engine({
      agent: new ModelPathAgent({ model: new ScriptedModel(['{"final_answer": "x"}']), parser: jsonParser() }),
      env: env({ image: 'img', docker: d.bin }),
      trace: false,
    }).run('t');
    expect(r.stopReason).toBe('unrecoverable_error');
    expect(r.stopMessage).toMatch(/no docker engine answers/);
    d.setEngine('up'); // so the clean-up can remove the container started above
  });
});

// A real engine, where one answers. On a machine with the docker client but no engine (this one), `docker info`
// fails and the test says so in its name.
const info = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8', timeout: 20_000 });
const engineUp = info.status === 0 && !!info.stdout.trim();
const why = info.error
  ? `docker CLI not found (${info.error.message})`
  : `\`docker info\` fails: ${(info.stderr || info.stdout || '').trim().split('\n')[0]}`;
const image = process.env.QITOS_DOCKER_IMAGE ?? 'busybox:stable';

describe(`DockerEnv on a real docker engine${engineUp ? '' : ` (skipped: ${why})`}`, () => {
  it.skipIf(!engineUp)(
    `runs commands and file ops in a ${image} container and removes it`,
    async () => {
      const have =
        spawnSync('docker', ['image', 'inspect', image], { encoding: 'utf8' }).status === 0 ||
        spawnSync('docker', ['pull', image], { encoding: 'utf8', timeout: 300_000 }).status === 0;
      expect(have, `image ${image} is neither present nor pullable (set QITOS_DOCKER_IMAGE to a local image)`).toBe(
        true,
      );
      const e = env({ image });
      await e.setup();
      await e.files.writeText('dir/a.txt', 'hello\n');
      expect(await e.files.readText('dir/a.txt')).toBe('hello\n');
      expect(await e.files.glob('**/*.txt')).toEqual(['dir/a.txt']);
      expect(await e.files.list('dir')).toMatchObject([{ path: 'dir/a.txt', type: 'file', size: 6 }]);
      const r = await e.processes.run('cat a.txt; ls /; (sleep 30 &) ; sleep 30', { cwd: 'dir', timeoutMs: 1000 });
      expect(r.timedOut).toBe(true);
      expect(r.stdout).toContain('hello');
      const ps = await e.processes.run('ps | grep -c "sleep 30" || true');
      expect(Number(ps.stdout.trim())).toBeLessThanOrEqual(1); // only the grep itself may match
      const id = e.container!;
      await e.close();
      expect(spawnSync('docker', ['inspect', id]).status).not.toBe(0);
    },
    600_000,
  );
});
