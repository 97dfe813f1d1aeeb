// `npm run build` (also run by `prepack`): compiles src/ to dist/ (ESM JavaScript with source maps carrying
// their sources, and .d.ts), then copies the files src/ holds besides TypeScript (the viewer's CSS and JS).
// dist/ is emptied first, so a file removed from src/ cannot linger in a package.
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const dist = join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });

for (const file of readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!file.isFile() || file.name.endsWith('.ts')) continue;
  const from = join(file.parentPath ?? file.path, file.name); // parentPath from Node 20.12
  cpSync(from, join(dist, relative(src, from)));
}
