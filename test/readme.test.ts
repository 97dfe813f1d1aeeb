import { execFile } from 'node:child_process';
import { readFile, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers/kernel-fixtures.js';
import { toSourceImports } from './helpers/package-exports.js';
import { readmeExample } from './helpers/readme-example.js';

const root = resolve(__dirname, '..');

describe('README', () => {
  it('shows the two set-up commands', async () => {
    const readme = await readFile(resolve(root, 'README.md'), 'utf8');
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm test');
  });

  it('its "Use it in your project" example runs on the sources (test/packaging runs it on the installed package)', async () => {
    const readme = await readFile(resolve(root, 'README.md'), 'utf8');
    const cwd = await tempDir();
    await writeFile(join(cwd, 'main.mts'), toSourceImports(readmeExample(readme)));
    await symlink(resolve(root, 'node_modules'), join(cwd, 'node_modules')); // its own `import 'zod'`
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', resolve(root, 'node_modules/tsx/dist/loader.mjs'), join(cwd, 'main.mts')],
      { cwd, env: { ...process.env, NODE_NO_WARNINGS: '1', XDG_CONFIG_HOME: join(cwd, '.config') } },
    );
    expect(stdout).toMatch(/^final 42 \[ 'add -> 42', 'add' \] .*traces/);
  });

  it('npm run demo solves its task offline and prints the trace folder', async () => {
    const cwd = await tempDir();
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', resolve(root, 'node_modules/tsx/dist/loader.mjs'), resolve(root, 'examples/demo.ts')],
      { cwd, env: { ...process.env, NODE_NO_WARNINGS: '1', XDG_CONFIG_HOME: join(cwd, '.config') } },
    );
    expect(stdout).toContain('stop reason: final');
    expect(stdout).toContain('final result: 8');
    const trace = /trace: (.+)/.exec(stdout)![1];
    expect(trace.startsWith(cwd)).toBe(true);
    // the demo replays its own trace: every decision must match
    expect(stdout).toMatch(/decisions: all 3 match the recording/);
  });
});
