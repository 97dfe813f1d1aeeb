import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { zodProblem } from '../../src/cli/peer-dependencies.js';
import { tempDir } from '../helpers/cli-harness.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir('qitos-peer-')));
afterEach(() => cleanup());

/** A file in a project whose node_modules holds zod at `version` (none when undefined). */
async function project(version: string | undefined): Promise<string> {
  if (version) {
    await mkdir(join(dir, 'node_modules/zod'), { recursive: true });
    await writeFile(
      join(dir, 'node_modules/zod/package.json'),
      JSON.stringify({ name: 'zod', version, exports: { './package.json': './package.json' } }),
    );
  }
  return pathToFileURL(join(dir, 'main.js')).href;
}

describe('zodProblem: the zod qitos-ts would import', () => {
  it('is fine with zod 4', async () => {
    expect(zodProblem(await project('4.1.5'))).toBeUndefined();
    expect(zodProblem()).toBeUndefined(); // this repository's own
  });

  it('names zod 3, its version and where it is', async () => {
    expect(zodProblem(await project('3.23.8'))).toBe(
      `qitos-ts needs zod ^4.0.0 (a peer dependency), but zod 3.23.8 is installed ` +
        `(${join(dir, 'node_modules/zod/package.json')}): npm install zod@^4.0.0`,
    );
  });

  it('says a missing zod is a missing peer dependency', async () => {
    expect(zodProblem(await project(undefined))).toBe(
      'missing peer dependency zod: install it next to qitos-ts (npm install zod@^4.0.0)',
    );
  });
});
