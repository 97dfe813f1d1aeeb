import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvError } from '../../src/core/index.js';
import { HostEnv, PathJail, isInside } from '../../src/envs/index.js';
import { fileTree } from '../helpers/file-tree.js';

let base: string;
let root: string;
let env: HostEnv;

beforeAll(() => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'qitos-jail-')));
  root = path.join(base, 'ws');
  mkdirSync(path.join(root, 'sub', 'deep'), { recursive: true });
  mkdirSync(path.join(base, 'ws2'));
  mkdirSync(path.join(base, 'outside'));
  writeFileSync(path.join(base, 'ws2', 'secret.txt'), 'sibling secret');
  writeFileSync(path.join(base, 'outside', 'secret.txt'), 'outside secret');
  writeFileSync(path.join(root, 'sub', 'inside.txt'), 'inside');
  symlinkSync('../outside/secret.txt', path.join(root, 'linkfile'));
  symlinkSync('../outside', path.join(root, 'linkdir'));
  symlinkSync(path.join(base, 'outside'), path.join(root, 'abslinkdir'));
  symlinkSync('../outside/not-yet.txt', path.join(root, 'dangling'));
  symlinkSync('../../outside', path.join(root, 'sub', 'up2'));
  symlinkSync('..', path.join(root, 'parent'));
  symlinkSync('sub', path.join(root, 'inner'));
  symlinkSync(path.join(root, 'sub', 'inside.txt'), path.join(root, 'abs-inner.txt'));
  symlinkSync('loop', path.join(root, 'loop'));
  env = new HostEnv({ root });
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('isInside', () => {
  it('compares by path segments, not by string prefix', () => {
    expect(isInside('/ws', '/ws')).toBe(true);
    expect(isInside('/ws', '/ws/a/b')).toBe(true);
    expect(isInside('/ws', '/ws2')).toBe(false);
    expect(isInside('/ws', '/ws2/a')).toBe(false);
    expect(isInside('/ws', '/')).toBe(false);
    expect(isInside('/ws', '/ws/..a')).toBe(true); // a name starting with two dots is a child, not a climb
    expect(isInside('/', '/anything')).toBe(true);
  });
});

describe('escape attempts (HostEnv)', () => {
  const escapes: Array<[string, () => string, RegExp]> = [
    ['relative ..', () => '../outside/secret.txt', /outside the workspace/],
    ['absolute outside', () => path.join(base, 'outside', 'secret.txt'), /outside the workspace/],
    ['sibling prefix, absolute', () => `${root}2/secret.txt`, /outside the workspace/],
    ['sibling prefix, relative', () => '../ws2/secret.txt', /outside the workspace/],
    ['.. in the middle', () => 'sub/deep/../../../outside/secret.txt', /outside the workspace/],
    ['symlink to a file outside', () => 'linkfile', /symlink "linkfile" that points outside/],
    ['symlink to a folder outside', () => 'linkdir/secret.txt', /symlink "linkdir" that points outside/],
    ['absolute symlink to a folder outside', () => 'abslinkdir/secret.txt', /symlink "abslinkdir" that points outside/],
    ['dangling symlink to outside', () => 'dangling', /symlink "dangling" that points outside/],
    ['nested symlink climbing out', () => 'sub/up2/secret.txt', /points outside/],
    ['symlink to the parent of the root', () => 'parent/outside/secret.txt', /points outside|outside the workspace/],
    ['symlink loop', () => 'loop/x', /too many levels of symlinks/],
    ['NUL byte', () => 'sub/inside.txt\0../../x', /NUL byte/],
    ['empty path', () => '', /path is empty/],
  ];
  const ops: Array<[string, (p: string) => Promise<unknown>]> = [
    ['readText', (p) => env.files.readText(p)],
    ['writeText', (p) => env.files.writeText(p, 'pwned')],
    ['list', (p) => env.files.list(p)],
    ['stat', (p) => env.files.stat(p)],
    ['glob cwd', (p) => env.files.glob('**/*', { cwd: p })],
    ['process cwd', (p) => env.processes!.run('echo pwned > pwned.txt', { cwd: p, timeoutMs: 2000 })],
  ];

  for (const [name, p, message] of escapes) {
    it(`refuses ${name} for every op and changes nothing outside`, async () => {
      const before = { outside: fileTree(path.join(base, 'outside')), ws2: fileTree(path.join(base, 'ws2')) };
      for (const [op, fn] of ops) {
        const err = await fn(p()).then(
          () => new Error(`${op} accepted ${JSON.stringify(p())}`),
          (e: unknown) => e,
        );
        expect(err, op).toBeInstanceOf(EnvError);
        expect((err as Error).message, op).toMatch(message);
      }
      expect({ outside: fileTree(path.join(base, 'outside')), ws2: fileTree(path.join(base, 'ws2')) }).toEqual(before);
      expect(readdirSync(path.join(base, 'outside'))).not.toContain('not-yet.txt');
    });
  }

  it('follows symlinks that stay inside the root', async () => {
    expect(await env.files.readText('inner/inside.txt')).toBe('inside');
    expect(await env.files.readText('abs-inner.txt')).toBe('inside');
    expect(await env.files.readText(path.join(root, 'sub', 'deep', '..', 'inside.txt'))).toBe('inside');
    await env.files.writeText('inner/through-link.txt', 'ok');
    expect(readFileSync(path.join(root, 'sub', 'through-link.txt'), 'utf8')).toBe('ok');
  });

  it('removes a symlink itself, never what it points to', async () => {
    symlinkSync('../outside', path.join(root, 'to-remove'));
    await env.files.remove('to-remove');
    expect(readdirSync(root)).not.toContain('to-remove');
    expect(readFileSync(path.join(base, 'outside', 'secret.txt'), 'utf8')).toBe('outside secret');
    await expect(env.files.remove('.')).rejects.toThrow(/workspace root/);
    await expect(env.files.remove('../outside/secret.txt')).rejects.toThrow(/outside the workspace/);
  });

  it('a glob walk does not descend into symlinked folders', async () => {
    const all = await env.files.glob('**/*');
    expect(all.some((p) => p.startsWith('linkdir/') || p.startsWith('abslinkdir/'))).toBe(false);
    expect(all).toContain('sub/inside.txt');
  });
});

describe('PathJail property', () => {
  const segments = [
    '..',
    '.',
    'a',
    'b',
    'sub',
    'deep',
    'linkdir',
    'abslinkdir',
    'linkfile',
    'parent',
    'inner',
    'dangling',
    'up2',
    'new',
    '',
  ];

  it('random paths never resolve outside the root', async () => {
    const jail = new PathJail(root);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...segments), { maxLength: 8 }),
        fc.constantFrom('', '/', `${root}/`, `${base}/`),
        async (segs, prefix) => {
          const p = prefix + segs.join('/');
          let resolved: string;
          try {
            resolved = await jail.resolve(p);
          } catch (err) {
            expect(err).toBeInstanceOf(EnvError);
            return;
          }
          expect(isInside(root, resolved)).toBe(true);
          // What the OS makes of the answer (if it exists) is inside too: no symlink is left in it to follow.
          let real: string | undefined;
          try {
            real = realpathSync(resolved);
          } catch {
            real = undefined; // does not exist (yet): nothing to follow
          }
          if (real !== undefined) expect(isInside(root, real)).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('random writes never create or change anything outside the root', async () => {
    const before = { outside: fileTree(path.join(base, 'outside')), ws2: fileTree(path.join(base, 'ws2')) };
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...segments), { minLength: 1, maxLength: 6 }), async (segs) => {
        await env.files.writeText(segs.join('/'), 'x').catch((err: unknown) => {
          expect(err).toBeInstanceOf(EnvError);
        });
      }),
      { numRuns: 150 },
    );
    expect({ outside: fileTree(path.join(base, 'outside')), ws2: fileTree(path.join(base, 'ws2')) }).toEqual(before);
    expect(readdirSync(base).sort()).toEqual(['outside', 'ws', 'ws2']);
  });
});
