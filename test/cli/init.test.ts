import { execFile } from 'node:child_process';
import { lstat, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { packageName, SCAFFOLD } from '../../src/cli/commands/init-action.js';
import { qitos, tempDir } from '../helpers/cli-harness.js';
import { REPO, toSourceImports } from '../helpers/package-exports.js';

const TEMPLATES = resolve(REPO, 'src/cli/init-templates');
const repoPkg = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};
const WRITTEN = ['package.json', ...SCAFFOLD.map((f) => f.path)];

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir('qitos-init-')));
afterEach(() => cleanup());

/** Every file under `root`, relative, sorted. */
async function tree(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => !e.isDirectory())
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
}

describe('qitos init', () => {
  it(
    'writes the project (agent, offline model, qitos.yaml, suite with a scorer, test, ' +
      'package.json, README) and names each file',
    async () => {
      const r = await qitos(['init', 'my exp'], dir);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      const root = join(dir, 'my exp');
      expect(await tree(root)).toEqual([...WRITTEN].sort());
      expect(r.out.split('\n').slice(1, 1 + WRITTEN.length)).toEqual(WRITTEN.map((f) => `  ${f}`));
      expect(r.out).toMatch(/^next: cd my exp && npm install && npm test/m);
      // Every template is written somewhere, and each file is its template as it is.
      expect((await tree(TEMPLATES)).sort()).toEqual(SCAFFOLD.map((f) => f.template).sort());
      for (const f of SCAFFOLD)
        expect(await readFile(join(root, f.path), 'utf8'), f.path).toBe(
          await readFile(join(TEMPLATES, f.template), 'utf8'),
        );

      const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
      expect(pkg).toMatchObject({
        name: 'my-exp',
        private: true,
        type: 'module',
        dependencies: { 'qitos-ts': `^${repoPkg.version}`, zod: repoPkg.peerDependencies.zod },
        devDependencies: { tsx: repoPkg.dependencies.tsx },
      });
      expect(Object.keys(pkg.scripts)).toEqual(['test', 'run', 'bench']);
      // The model line a researcher uncomments to leave the offline stand-in.
      expect(await readFile(join(root, 'qitos.yaml'), 'utf8')).toMatch(/^# model:\n# {3}id: openai:gpt-4o-mini$/m);

      const json = await qitos(['init', 'second', '--json'], dir);
      expect(JSON.parse(json.out)).toEqual({ dir: join(dir, 'second'), files: WRITTEN });
    },
  );

  it('refuses a folder that is not empty, writing nothing; --force writes over it, replacing files of the same names', async () => {
    await writeFile(join(dir, 'notes.txt'), 'mine');
    await writeFile(join(dir, 'agent.ts'), 'my own agent');
    const r = await qitos(['init'], dir);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      'qitos: . is not empty (2 entries, e.g. agent.ts): choose a new folder, or pass --force to write the project over it\n',
    );
    expect(await tree(dir)).toEqual(['agent.ts', 'notes.txt']);
    expect(await readFile(join(dir, 'agent.ts'), 'utf8')).toBe('my own agent');

    const forced = await qitos(['init', '--force'], dir);
    expect(forced.code, forced.err).toBe(0);
    expect(await tree(dir)).toEqual([...WRITTEN, 'notes.txt'].sort());
    expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
    expect(await readFile(join(dir, 'agent.ts'), 'utf8')).toContain('export default class LetterCounter');
  });

  it('--force replaces a symlink where a scaffold file goes instead of writing through it', async () => {
    const outside = join(dir, 'outside.ts');
    await writeFile(outside, 'not yours to overwrite');
    await mkdir(join(dir, 'p'));
    await symlink(outside, join(dir, 'p', 'agent.ts'));
    expect((await qitos(['init', 'p', '--force'], dir)).code).toBe(0);
    expect(await readFile(outside, 'utf8')).toBe('not yours to overwrite');
    expect((await lstat(join(dir, 'p', 'agent.ts'))).isFile()).toBe(true);
  });

  it('a file where the folder goes, or a folder or symlink where a scaffold folder goes, is named', async () => {
    await writeFile(join(dir, 'taken'), '');
    expect((await qitos(['init', 'taken'], dir)).err).toBe('qitos: taken exists and is not a folder\n');
    await mkdir(join(dir, 'p'));
    await symlink(dir, join(dir, 'p', 'suite'));
    expect((await qitos(['init', 'p', '--force'], dir)).err).toBe('qitos: p/suite exists and is not a folder\n');
    await mkdir(join(dir, 'q', 'README.md'), { recursive: true });
    expect((await qitos(['init', 'q', '--force'], dir)).err).toBe(
      'qitos: q/README.md is a folder; the project needs a file there\n',
    );
    expect(await tree(join(dir, 'q'))).toEqual([]);
  });

  it('the package name is a valid npm name for any folder name', () => {
    expect(packageName('My Agent!')).toBe('my-agent');
    expect(packageName('..')).toBe('qitos-project');
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (s) => {
        const name = packageName(s);
        expect(name).toMatch(/^[a-z0-9][a-z0-9._~-]*$/);
        expect(name.length).toBeLessThanOrEqual(214);
      }),
    );
  });

  it('the project runs offline on the sources: its tests pass, qitos run answers through the tool, the suite passes', async () => {
    expect((await qitos(['init', 'demo'], dir)).code).toBe(0);
    const root = join(dir, 'demo');
    for (const f of ['agent.ts', 'offline-model.ts', 'suite/scorer.ts', 'test/agent.test.ts'])
      await writeFile(join(root, f), toSourceImports(await readFile(join(root, f), 'utf8')));
    await symlink(resolve(REPO, 'node_modules'), join(root, 'node_modules')); // its own zod and tsx

    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
    const [cmd, ...args] = (pkg.scripts.test as string).split(' ');
    expect(cmd).toBe('node');
    const test = await promisify(execFile)(process.execPath, args, { cwd: root, env: { PATH: process.env.PATH } });
    expect(test.stdout).toMatch(/^ℹ pass 2$/m);
    expect(test.stdout).toMatch(/^ℹ fail 0$/m);

    const run = await qitos(
      [
        'run',
        'agent.ts',
        '-c',
        'qitos.yaml',
        '-t',
        'How many times does the letter "r" appear in "strawberry"?',
        '--json',
      ],
      root,
    );
    expect(run.code, run.err).toBe(0);
    expect(JSON.parse(run.out)).toMatchObject({ stopReason: 'final', finalResult: '3', steps: 2 });
    expect(JSON.parse(run.out).traceDir.startsWith(join(root, 'traces'))).toBe(true);

    const bench = await qitos(
      ['bench', 'run', 'suite', '-c', 'qitos.yaml', '-o', 'out', '--no-progress', '--json'],
      root,
    );
    expect(bench.code, bench.err).toBe(0);
    expect(JSON.parse(bench.out)).toMatchObject({ suite: 'letter-count', passRate: { passed: 5, total: 5 } });
  }, 60_000);
});
