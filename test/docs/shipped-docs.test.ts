import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { docPointers, isPacked } from '../helpers/doc-pointers.js';
import { REPO } from '../helpers/package-exports.js';

/**
 * README.md and docs/ ship in the package: they speak to its users, and point only at what those users can open.
 * The file list is npm's own (`npm pack --dry-run`, without the build: no doc points into dist/).
 */
let files: string[];
let shipped: string[];
beforeAll(async () => {
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: REPO,
    maxBuffer: 16 * 1024 * 1024,
  });
  files = (JSON.parse(stdout.slice(stdout.search(/^\[/m))) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map(
    (f) => f.path,
  );
  shipped = files.filter((f) => f.endsWith('.md'));
}, 120_000);

const INTERNAL = /issue #\d+|\bseeds?\/|\bseed `?\d{3}`?|\bseed \d+\.\d+|ApexBridge|\bthe lead\b/g;
/** The speed benchmarks' sources, which docs/performance.md cites as how its figures were measured (in a checkout). */
const SOURCE_ONLY = /^benchmarks\/?($|(perf|peers)(\/|$))/;

describe('the shipped docs', () => {
  it('are README.md and every page of docs/', () => {
    expect(shipped).toContain('README.md');
    expect(shipped).toContain('docs/cli.md');
    expect(shipped.every((f) => f === 'README.md' || f.startsWith('docs/'))).toBe(true);
  });

  it('carry no notes meant for the developers (issue numbers, requirement seeds, the systems the design came from)', async () => {
    const found: string[] = [];
    for (const f of shipped)
      for (const m of (await readFile(join(REPO, f), 'utf8')).matchAll(INTERNAL)) found.push(`${f}: ${m[0]}`);
    expect(found).toEqual([]);
    expect('as issue #16 says, after seed `001` and seed 10.2 (ApexBridge); the lead merges'.match(INTERNAL)).toEqual([
      'issue #16',
      'seed `001`',
      'seed 10.2',
      'ApexBridge',
      'the lead',
    ]);
  });

  it('every relative link and every examples/, benchmarks/ or docs/ path they name is in the package', async () => {
    const missing: string[] = [];
    const stale: string[] = [];
    for (const f of shipped)
      for (const p of docPointers(f, await readFile(join(REPO, f), 'utf8'))) {
        if (SOURCE_ONLY.test(p)) {
          if (!existsSync(join(REPO, p))) stale.push(`${f}: ${p}`);
        } else if (!isPacked(p, files)) missing.push(`${f}: ${p}`);
      }
    expect(missing).toEqual([]);
    expect(stale).toEqual([]);
  });

  it('the pointer reader finds links, named paths and package paths, and the check sees a missing one', () => {
    const text =
      'See [the CLI](cli.md#qitos-init-dir), [api](../docs/api.md), [web](https://x.y/a.md), [here](#top).\n' +
      'Run `qitos bench run benchmarks/arithmetic` or node_modules/qitos-ts/examples/workflows/a.yaml, not flows/b.yaml.\n' +
      'Figures: `benchmarks/perf/kernel.ts`; also docs/trace-format.md; prompt docs/summarize.';
    expect(docPointers('docs/bench.md', text).sort()).toEqual([
      'benchmarks/arithmetic',
      'benchmarks/perf/kernel.ts',
      'docs/api.md',
      'docs/cli.md',
      'docs/trace-format.md',
      'examples/workflows/a.yaml',
    ]);
    const pack = ['docs/api.md', 'docs/cli.md', 'examples/workflows/a.yaml'];
    expect(isPacked('examples/workflows/', pack)).toBe(true);
    expect(isPacked('examples/work', pack)).toBe(false);
    expect(isPacked('benchmarks/arithmetic', pack)).toBe(false);
  });
});
