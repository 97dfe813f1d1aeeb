import { spawn } from 'node:child_process';
import { linkSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvError } from '../../src/core/index.js';
import { HostEnv } from '../../src/envs/index.js';
import { editTool, writeTool } from '../../src/kit/tools/index.js';
import { fileTree } from '../helpers/file-tree.js';
import { callTool, tempWorkspace } from '../helpers/qitos-env-fixtures.js';

const SWAP_MS = 3000;

let base: string;
let root: string;
let outside: string;

beforeAll(() => {
  ({ base, root, outside } = tempWorkspace('qitos-race-', {
    'file.txt': 'OUTSIDE SECRET',
    'victim.txt': 'OUTSIDE VICTIM',
    'outside-only.txt': 'OUTSIDE ONLY',
    'sub/x.txt': 'OUTSIDE SUB',
  }));
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

/**
 * A separate process that, for `ms`, flips `ws/d` between a real folder (`.dir`: file.txt, sub/x.txt, ...) and a
 * symlink to the outside folder (`.link`), by renames. A folder that a write created at `d` while it was
 * missing is moved aside (to `.made-N`), so the flipping goes on. Resolves with the number of flips.
 */
function swapper(ms: number): Promise<number> {
  const code = `
    const fs = require('node:fs');
    process.chdir(${JSON.stringify(root)});
    const end = Date.now() + ${ms};
    const mv = (a, b) => { try { fs.renameSync(a, b); } catch {} };
    let n = 0;
    while (Date.now() < end) {
      mv('.dir', 'd');
      mv('d', '.dir');
      mv('.link', 'd');
      mv('d', '.link');
      if (fs.existsSync('d') || fs.existsSync('.dir') === false) mv('d', '.made-' + n);
      n++;
    }
    mv('.dir', 'd');
    process.stdout.write(String(n));
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (status) =>
      status === 0 ? resolve(Number(out)) : reject(new Error(`swapper exited ${status}`)),
    );
  });
}

describe('path jail under a concurrent folder/symlink swapper', () => {
  it(`tools read, write, list, stat, glob and remove for ${SWAP_MS} ms while d flips: zero escapes`, async () => {
    mkdirSync(path.join(root, '.dir', 'sub'), { recursive: true });
    writeFileSync(path.join(root, '.dir', 'file.txt'), 'inside');
    writeFileSync(path.join(root, '.dir', 'sub', 'x.txt'), 'inside sub');
    symlinkSync('../outside', path.join(root, '.link'));
    const before = fileTree(outside);
    const env = new HostEnv({ root, process: false });
    const escapes: string[] = [];
    const odd: unknown[] = [];
    let ops = 0;
    let refused = 0;
    const swapping = swapper(SWAP_MS);
    let running = true;
    void swapping.finally(() => (running = false));
    const loop = async (fn: (i: number) => Promise<void>) => {
      for (let i = 0; running; i++) {
        ops++;
        await fn(i).catch((err: unknown) => {
          if (!(err instanceof EnvError)) odd.push(err);
          else if (/symlink|changed while/.test(err.message)) refused++;
        });
      }
    };
    const edit = editTool();
    const write = writeTool();
    await Promise.all([
      loop(async () => {
        const t = await env.files.readText('d/file.txt');
        if (t.includes('OUTSIDE')) escapes.push(`readText: ${t}`);
      }),
      loop(async () => {
        const t = new TextDecoder().decode(await env.files.readBytes('d/sub/x.txt'));
        if (t.includes('OUTSIDE')) escapes.push(`readBytes: ${t}`);
      }),
      loop(async (i) => env.files.writeText(i % 2 ? 'd/new.txt' : 'd/file.txt', 'inside write')),
      loop(async (i) => env.files.writeText(`d/made-${i % 3}/deep/x.txt`, 'inside mkdir')),
      loop(async () => {
        const names = (await env.files.list('d')).map((s) => s.path);
        if (names.some((n) => n.includes('outside-only'))) escapes.push(`list: ${names.join(',')}`);
      }),
      loop(async () => {
        if (await env.files.stat('d/outside-only.txt')) escapes.push('stat saw outside-only.txt');
      }),
      loop(async () => {
        const found = await env.files.glob('**/*', { cwd: 'd' });
        if (found.some((n) => n.includes('outside-only'))) escapes.push(`glob: ${found.join(',')}`);
      }),
      loop(async (i) => env.files.remove(i % 2 ? 'd/victim.txt' : 'd/sub', { recursive: true })),
      loop(async () => {
        const r = await callTool(write, { path: 'd/sub/x.txt', content: 'inside via tool' }, env);
        if (r.status === 'success' && readFileSync(path.join(outside, 'sub', 'x.txt'), 'utf8') !== 'OUTSIDE SUB')
          escapes.push('write tool');
      }),
      loop(async () => {
        await callTool(edit, { path: 'd/file.txt', oldString: 'SECRET', newString: 'PWNED' }, env);
      }),
    ]);
    const swaps = await swapping;
    env.close();
    expect(swaps).toBeGreaterThan(100); // the race really ran
    expect(ops).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(0); // and the tools did meet the symlink: the race was live
    expect(odd).toEqual([]);
    expect(escapes).toEqual([]);
    expect(fileTree(outside)).toEqual(before);
    expect(readdirSync(base).sort()).toEqual(['outside', 'ws']);
  }, 30_000);
});

describe('hard links', () => {
  it('refuses to write through a hard link to a file outside, and leaves the file outside as it was', async () => {
    writeFileSync(path.join(outside, 'linked.txt'), 'OUTSIDE LINKED SECRET\n');
    linkSync(path.join(outside, 'linked.txt'), path.join(root, 'hl.txt'));
    const env = new HostEnv({ root, process: false });
    await expect(env.files.writeText('hl.txt', 'pwned')).rejects.toThrow(
      /cannot write "hl\.txt": it has 2 hard links, and one is outside the workspace/,
    );
    const r = await callTool(editTool(), { path: 'hl.txt', oldString: 'SECRET', newString: 'PWNED' }, env);
    expect(r.status).toBe('error');
    expect(r.seen).toMatch(/hard link/);
    expect(readFileSync(path.join(outside, 'linked.txt'), 'utf8')).toBe('OUTSIDE LINKED SECRET\n');
  });

  it('writes a file whose hard links are all inside the workspace', async () => {
    writeFileSync(path.join(root, 'a.txt'), 'one');
    mkdirSync(path.join(root, 'links'), { recursive: true });
    linkSync(path.join(root, 'a.txt'), path.join(root, 'links', 'b.txt'));
    const env = new HostEnv({ root, process: false });
    await env.files.writeText('a.txt', 'two');
    expect(readFileSync(path.join(root, 'links', 'b.txt'), 'utf8')).toBe('two');
  });
});

describe('DirAnchors without /proc/self/fd (other Unix systems)', () => {
  it('opens, creates and reaches names through checked real paths, and refuses a folder outside', async () => {
    const { DirAnchors } = await import('../../src/envs/anchored-dir.js');
    const { PathJail } = await import('../../src/envs/path-jail.js');
    const anchors = new DirAnchors(new PathJail(root), { viaProc: false });
    const made = await anchors.create(path.join(root, 'plain', 'a', 'b'));
    expect(made.self).toBe(path.join(root, 'plain', 'a', 'b'));
    writeFileSync(made.at('f.txt'), 'x');
    made.close();
    const top = await anchors.open(path.join(root, 'plain'));
    const child = await top.child('a');
    expect(readFileSync(path.join(child.self, 'b', 'f.txt'), 'utf8')).toBe('x');
    top.close();
    child.close();
    symlinkSync(outside, path.join(root, 'plain', 'out'));
    await expect(anchors.open(path.join(root, 'plain', 'out'))).rejects.toMatchObject({
      code: expect.stringMatching(/^(ELOOP|ENOTDIR)$/),
    });
    await expect(anchors.open(outside)).rejects.toThrow(/changed while it was being opened/);
  });
});
