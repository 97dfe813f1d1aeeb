import { describe, expect, it } from 'vitest';
import { EnvError } from '../../src/core/index.js';
import { compileGlob } from '../../src/envs/index.js';
import { envCases } from '../helpers/qitos-env-fixtures.js';

for (const kind of envCases) {
  describe(`FileOps on ${kind.name}`, () => {
    const files = {
      'README.md': '# readme',
      'src/a.ts': 'export const a = 1;\n',
      'src/b.js': 'b',
      'src/lib/c.ts': 'c',
      'src/lib/deep/d.ts': 'd',
      '.hidden/e.ts': 'e',
      'node_modules/pkg/index.ts': 'pkg',
    };

    it('reads, writes (creating folders) and overwrites text', async () => {
      const ws = kind.make(files);
      try {
        expect(await ws.files.readText('src/a.ts')).toBe('export const a = 1;\n');
        await ws.files.writeText('new/dir/f.txt', 'héllo');
        expect(await ws.files.readText('new/dir/f.txt')).toBe('héllo');
        expect(Array.from(await ws.files.readBytes('new/dir/f.txt'))).toEqual(
          Array.from(new TextEncoder().encode('héllo')),
        );
        await ws.files.writeText('new/dir/f.txt', 'second');
        expect(await ws.files.readText(`${ws.files.root}/new/dir/f.txt`)).toBe('second');
      } finally {
        ws.cleanup();
      }
    });

    it('says clearly what is missing or wrong', async () => {
      const ws = kind.make(files);
      try {
        await expect(ws.files.readText('nope.txt')).rejects.toThrow('cannot read "nope.txt": no such file or folder');
        await expect(ws.files.readText('src')).rejects.toThrow('cannot read "src": it is a folder, not a file');
        await expect(ws.files.writeText('src', 'x')).rejects.toThrow('cannot write "src": it is a folder, not a file');
        await expect(ws.files.writeText('README.md/x', 'x')).rejects.toThrow(
          'cannot write "README.md/x": a part of the path is a file, not a folder',
        );
        await expect(ws.files.list('nope')).rejects.toThrow(EnvError);
        await expect(ws.files.readText('../outside/secret.txt')).rejects.toThrow(/outside the workspace/);
        await expect(ws.files.writeText('/etc/qitos-test', 'x')).rejects.toThrow(/outside the workspace/);
        await expect(ws.files.readText('')).rejects.toThrow(/path is empty/);
        await expect(ws.files.readText('a\0b')).rejects.toThrow(/NUL byte/);
      } finally {
        ws.cleanup();
      }
    });

    it('lists and stats', async () => {
      const ws = kind.make(files);
      try {
        const names = (await ws.files.list('src')).map((s) => [s.path, s.type]);
        expect(names).toEqual([
          ['src/a.ts', 'file'],
          ['src/b.js', 'file'],
          ['src/lib', 'directory'],
        ]);
        expect(await ws.files.stat('src/a.ts')).toMatchObject({ path: 'src/a.ts', type: 'file', size: 20 });
        expect(await ws.files.stat('src/lib')).toMatchObject({ type: 'directory' });
        expect(await ws.files.stat('missing')).toBeUndefined();
        await expect(ws.files.stat('../outside')).rejects.toThrow(/outside the workspace/);
      } finally {
        ws.cleanup();
      }
    });

    it('globs with **, classes and braces, skipping dot folders and node_modules unless named', async () => {
      const ws = kind.make(files);
      try {
        expect(await ws.files.glob('**/*.ts')).toEqual(['src/a.ts', 'src/lib/c.ts', 'src/lib/deep/d.ts']);
        expect(await ws.files.glob('src/*.{ts,js}')).toEqual(['src/a.ts', 'src/b.js']);
        expect(await ws.files.glob('src/**')).toEqual(['src/a.ts', 'src/b.js', 'src/lib/c.ts', 'src/lib/deep/d.ts']);
        expect(await ws.files.glob('*.ts', { cwd: 'src/lib' })).toEqual(['src/lib/c.ts']);
        expect(await ws.files.glob('.hidden/**')).toEqual(['.hidden/e.ts']);
        expect(await ws.files.glob('node_modules/**/*.ts')).toEqual(['node_modules/pkg/index.ts']);
        expect(await ws.files.glob('**/*.ts', { limit: 2 })).toEqual(['src/a.ts', 'src/lib/c.ts']);
        await expect(ws.files.glob('../*')).rejects.toThrow(/contains "\.\."/);
        await expect(ws.files.glob('*', { cwd: '../outside' })).rejects.toThrow(/outside the workspace/);
      } finally {
        ws.cleanup();
      }
    });

    it('removes files, and folders only when recursive', async () => {
      const ws = kind.make(files);
      try {
        await ws.files.remove('src/b.js');
        expect(await ws.files.stat('src/b.js')).toBeUndefined();
        await expect(ws.files.remove('src/lib')).rejects.toThrow(/pass recursive/);
        await ws.files.remove('src/lib', { recursive: true });
        expect(await ws.files.glob('src/**')).toEqual(['src/a.ts']);
        await expect(ws.files.remove('.')).rejects.toThrow(/workspace root/);
        await expect(ws.files.remove('gone')).rejects.toThrow(/no such file/);
      } finally {
        ws.cleanup();
      }
    });
  });
}

describe('compileGlob', () => {
  const cases: Array<[string, string, boolean]> = [
    ['*.ts', 'a.ts', true],
    ['*.ts', 'dir/a.ts', false],
    ['*.ts', '.a.ts', false],
    ['**/*.ts', 'a.ts', true],
    ['**/*.ts', 'x/y/a.ts', true],
    ['**/*.ts', '.git/a.ts', false],
    ['src/**/test/*.ts', 'src/test/a.ts', true],
    ['src/**/test/*.ts', 'src/a/b/test/a.ts', true],
    ['src/**/test/*.ts', 'src/a/b/tests/a.ts', false],
    ['file?.txt', 'file1.txt', true],
    ['file?.txt', 'file10.txt', false],
    ['[ab]*.md', 'b-readme.md', true],
    ['[!ab]*.md', 'b-readme.md', false],
    ['[!ab]*.md', 'c.md', true],
    ['{src,test}/**/*.{ts,tsx}', 'test/x/y.tsx', true],
    ['{src,test}/**/*.{ts,tsx}', 'lib/y.ts', false],
    ['a\\*b', 'a*b', true],
    ['a\\*b', 'axb', false],
    ['a.b(c)+', 'a.b(c)+', true],
    ['a.b(c)+', 'axb(c)', false],
    ['{a}', '{a}', true],
  ];
  for (const [pattern, p, want] of cases) {
    it(`${pattern} ${want ? 'matches' : 'does not match'} ${p}`, () => {
      expect(compileGlob(pattern).test(p)).toBe(want);
    });
  }

  it('computes the literal base and depth a walk may prune with', () => {
    expect(compileGlob('src/lib/*.ts')).toMatchObject({ base: 'src/lib', maxDepth: 1 });
    expect(compileGlob('src/**/*.ts')).toMatchObject({ base: 'src', maxDepth: Infinity });
    expect(compileGlob('{src,test}/*.ts')).toMatchObject({ base: '', maxDepth: 2 });
  });

  it('refuses absolute patterns, .., NUL and huge brace expansions', () => {
    expect(() => compileGlob('/etc/*')).toThrow(/absolute/);
    expect(() => compileGlob('a/../../b')).toThrow(/\.\./);
    expect(() => compileGlob('a\0')).toThrow(/NUL/);
    expect(() => compileGlob('{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}')).toThrow(/more than 256 alternatives/);
  });
});
