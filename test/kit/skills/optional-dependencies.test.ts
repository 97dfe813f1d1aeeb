import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/kernel-fixtures.js';

const REPO = resolve(__dirname, '../../..');

/** Every module URL a fresh Node process loads while running `code` (recorded by a module-resolution hook). */
async function loadedModules(code: string): Promise<string[]> {
  const dir = await tempDir();
  const log = join(dir, 'loaded.txt');
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, r.url + '\\n');
  return r;
}`,
  );
  writeFileSync(
    join(dir, 'register.mjs'),
    `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});`,
  );
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      join(dir, 'register.mjs'),
      '--import',
      resolve(REPO, 'node_modules/tsx/dist/loader.mjs'),
      '--input-type=module',
      '-e',
      code,
    ],
    { cwd: REPO, encoding: 'utf8' },
  );
  expect(r.status, r.stderr).toBe(0);
  return readFileSync(log, 'utf8').trim().split('\n');
}

describe('heavy optional dependencies load only when used', () => {
  it('importing qitos-ts/skills loads neither transformers.js (nor its ONNX runtime) nor vectra', async () => {
    const urls = await loadedModules(
      `await import(${JSON.stringify(pathToFileURL(join(REPO, 'src/kit/skills/index.ts')).href)});`,
    );
    expect(urls.some((u) => u.includes('/src/models/embedders/transformers-embedder.ts'))).toBe(true); // the test would see them
    expect(urls.filter((u) => /@huggingface\/transformers|onnxruntime|\/vectra\//.test(u))).toEqual([]);
  });

  it('opening a skills index loads neither vectra nor transformers.js', async () => {
    const dir = await tempDir();
    const urls = await loadedModules(
      `const { ToolRetrievalService } = await ` +
        `import(${JSON.stringify(pathToFileURL(join(REPO, 'src/kit/skills/index.ts')).href)}); ` +
        `await ToolRetrievalService.open(${JSON.stringify(dir)});`,
    );
    expect(urls.some((u) => u.includes('/src/kit/skills/skill-index-file.ts'))).toBe(true); // the test would see them
    expect(urls.filter((u) => /@huggingface\/transformers|onnxruntime|\/vectra\//.test(u))).toEqual([]);
  });
});
