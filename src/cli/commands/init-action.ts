import { lstat, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { AppError } from '../../app/app-error.js';
import type { CliIO } from '../io.js';

/**
 * The files `qitos init` writes: the template (under src/cli/init-templates, copied to dist by the build) and the
 * path it gets in the project. package.json is made from the running qitos-ts's own (see projectPackageJson).
 */
export const SCAFFOLD: ReadonlyArray<{ template: string; path: string }> = [
  { template: 'agent.ts.tmpl', path: 'agent.ts' },
  { template: 'offline-model.ts.tmpl', path: 'offline-model.ts' },
  { template: 'qitos.yaml.tmpl', path: 'qitos.yaml' },
  { template: 'suite/suite.yaml.tmpl', path: 'suite/suite.yaml' },
  { template: 'suite/tasks.jsonl.tmpl', path: 'suite/tasks.jsonl' },
  { template: 'suite/scorer.ts.tmpl', path: 'suite/scorer.ts' },
  { template: 'test/agent.test.ts.tmpl', path: 'test/agent.test.ts' },
  { template: 'README.md.tmpl', path: 'README.md' },
  // npm leaves files named .gitignore out of a package, so the template has another name.
  { template: 'gitignore.tmpl', path: '.gitignore' },
];

const TEMPLATES = new URL('../init-templates/', import.meta.url);
const QITOS_PACKAGE = new URL('../../../package.json', import.meta.url);

interface QitosPackage {
  version: string;
  engines?: { node?: string };
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
}

/** What `qitos init` does (loaded when the command runs). */
export async function initAction(io: CliIO, dir: string, opts: { force?: boolean; json?: boolean }): Promise<void> {
  const root = resolve(io.cwd, dir);
  await checkTarget(root, dir, opts.force === true);
  const qitos = JSON.parse(await readFile(QITOS_PACKAGE, 'utf8')) as QitosPackage;
  const files: Array<{ path: string; text: string }> = [
    { path: 'package.json', text: projectPackageJson(basename(root), qitos) },
  ];
  for (const f of SCAFFOLD) files.push({ path: f.path, text: await readFile(new URL(f.template, TEMPLATES), 'utf8') });

  for (const f of files) {
    const target = join(root, f.path);
    await mkdir(dirname(target), { recursive: true });
    // Replace, never write through: a symlink where a scaffold file goes is removed, not followed.
    if (opts.force) await rm(target, { force: true });
    await writeFile(target, f.text, { flag: 'wx' });
  }

  const shown = relative(io.cwd, root) || '.';
  if (opts.json) {
    io.out(JSON.stringify({ dir: root, files: files.map((f) => f.path) }, null, 2) + '\n');
    return;
  }
  io.out(`created a qitos-ts project in ${shown}/\n`);
  for (const f of files) io.out(`  ${f.path}\n`);
  const cd = shown === '.' ? '' : `cd ${shown} && `;
  io.out(`next: ${cd}npm install && npm test && npm run run && npm run bench\n`);
}

/**
 * The folder must be missing or empty; with --force any folder will do, but what the scaffold writes must not
 * land on a folder or go through a symlinked folder (a file of the same name is replaced).
 */
async function checkTarget(root: string, shown: string, force: boolean): Promise<void> {
  const stat = await lstat(root).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw new AppError(`cannot read ${shown}: ${err.message}`);
  });
  if (!stat) return;
  if (!stat.isDirectory()) throw new AppError(`${shown} exists and is not a folder`);
  const entries = await readdir(root);
  if (entries.length && !force)
    throw new AppError(
      `${shown} is not empty (${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}, ` +
        `e.g. ${entries.sort()[0]}): choose a new folder, or pass --force to write the project ` +
        `over it`,
    );
  for (const sub of ['suite', 'test']) {
    const s = await lstat(join(root, sub)).catch(() => undefined);
    if (s && !s.isDirectory()) throw new AppError(`${join(shown, sub)} exists and is not a folder`);
  }
  for (const f of [{ path: 'package.json' }, ...SCAFFOLD]) {
    const s = await lstat(join(root, f.path)).catch(() => undefined);
    if (s?.isDirectory()) throw new AppError(`${join(shown, f.path)} is a folder; the project needs a file there`);
  }
}

/**
 * The project's package.json: an ESM package depending on the qitos-ts that runs init (and the zod and tsx it
 * works with: zod is its peer dependency, tsx runs the TypeScript tests), with test, run and bench scripts.
 */
export function projectPackageJson(folderName: string, qitos: QitosPackage): string {
  const pkg = {
    name: packageName(folderName),
    version: '0.1.0',
    private: true,
    type: 'module',
    scripts: {
      test: 'node --import tsx --test --test-reporter=spec test/agent.test.ts',
      run: `qitos run agent.ts -c qitos.yaml -t 'How many times does the letter "r" appear in "strawberry"?'`,
      bench: 'qitos bench run suite -c qitos.yaml',
    },
    dependencies: { 'qitos-ts': `^${qitos.version}`, zod: qitos.peerDependencies.zod },
    devDependencies: { tsx: qitos.dependencies.tsx },
    ...(qitos.engines?.node ? { engines: { node: qitos.engines.node } } : {}),
  };
  return JSON.stringify(pkg, null, 2) + '\n';
}

/** A valid npm package name from a folder name ("My Agent!" -> "my-agent"), or "qitos-project". */
export function packageName(folderName: string): string {
  const name = folderName
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, '-')
    .slice(0, 214)
    .replace(/^[._~-]+|[._~-]+$/g, '');
  return name || 'qitos-project';
}
