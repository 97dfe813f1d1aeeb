import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO } from './package-exports.js';

const run = promisify(execFile);

/** What the repository holds that `npm pack` needs to build the package (the build reads no other file). */
const BUILD_INPUTS = [
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts',
  'src',
  'bin',
  'docs',
  'examples',
  'README.md',
  'LICENSE',
];

/** The package packed from the sources and installed into a fresh project, as a user gets it. */
export interface InstalledPackage {
  /** The temporary folder holding everything below. */
  root: string;
  /** The .tgz `npm pack` wrote. */
  tarball: string;
  /** The paths inside the tarball (without the leading `package/`). */
  files: string[];
  /** The consumer project: `node_modules/qitos-ts` and its dependencies are installed there. */
  app: string;
  /** The installed `qitos` bin (node_modules/qitos-ts/bin/qitos.js). */
  bin: string;
  cleanup(): Promise<void>;
}

/**
 * Packs the repository's sources and installs the tarball into a new project. The package is built in a copy of
 * the sources (its own dist/, by `npm pack`'s prepack), never from a dist/ lying in the checkout. `deps` are
 * installed next to it (peer dependencies, a type checker, ...). npm works from its cache where it can
 * (`--prefer-offline`); what it lacks comes from the registry.
 */
export async function installPackedPackage(
  options: { deps?: string[]; projectType?: 'module' | 'commonjs' } = {},
): Promise<InstalledPackage> {
  const root = await mkdtemp(join(tmpdir(), 'qitos-pack-'));
  try {
    const stage = join(root, 'stage');
    await mkdir(stage);
    for (const entry of BUILD_INPUTS) await cp(join(REPO, entry), join(stage, entry), { recursive: true });
    // The build needs the compiler from the checkout's devDependencies; a link, not a copy.
    await symlink(join(REPO, 'node_modules'), join(stage, 'node_modules'));
    const packed = await npm(['pack', '--json', '--pack-destination', root], stage);
    const [info] = JSON.parse(packed.slice(packed.search(/^\[/m))) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    const tarball = join(root, info.filename);

    const app = join(root, 'app');
    await mkdir(app);
    await writeFile(
      join(app, 'package.json'),
      JSON.stringify({ name: 'qitos-consumer', private: true, type: options.projectType ?? 'module' }, null, 2),
    );
    await npm(
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball, ...(options.deps ?? [])],
      app,
    );
    return {
      root,
      tarball,
      files: info.files.map((f) => f.path),
      app,
      bin: join(app, 'node_modules/qitos-ts/bin/qitos.js'),
      cleanup: () => rm(root, { recursive: true, force: true }),
    };
  } catch (err) {
    await rm(root, { recursive: true, force: true });
    throw err;
  }
}

/** Runs npm in `cwd`; its stdout, or an error carrying npm's stderr. */
async function npm(args: string[], cwd: string): Promise<string> {
  try {
    const { stdout } = await run('npm', args, { cwd, maxBuffer: 64 * 1024 * 1024, timeout: 600_000 });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`npm ${args.slice(0, 2).join(' ')} failed in ${cwd}: ${e.stderr || e.message}`, { cause: err });
  }
}
