import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installTauData, loadTauDomain, tauDataDir } from '../../src/bench/tau-bench/index.js';
import { readUpstreamFile, tauDataInstalled, upstreamUrl } from '../../src/bench/tau-bench/install.js';
import { TAU_BENCH_COMMIT, UPSTREAM_FILES } from '../../src/bench/tau-bench/upstream-files.js';
import { qitos, tempDir } from '../helpers/cli-harness.js';

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});
async function temp(): Promise<string> {
  const t = await tempDir('qitos-tau-');
  cleanups.push(t.cleanup);
  return t.dir;
}

describe('qitos tau-bench fetch', () => {
  it('--from a folder that is not a checkout fails naming the missing file, and installs nothing', async () => {
    const dir = await temp();
    const run = await qitos(['tau-bench', 'fetch', '--from', dir, '--data-dir', join(dir, 'data')], dir);
    expect(run.code).toBe(2);
    expect(run.err).toContain('cannot read LICENSE');
    expect(tauDataInstalled(join(dir, 'data'))).toBe(false);
  });

  it('a file that differs from the pinned one is refused with its path, the expected and the actual sha256', async () => {
    const dir = await temp();
    await writeFile(join(dir, 'LICENSE'), 'not the MIT license\n');
    const run = await qitos(['tau-bench', 'fetch', '--from', '.', '--data-dir', 'data'], dir);
    expect(run.code).toBe(2);
    expect(run.err).toContain(
      `LICENSE does not match the pinned file: expected sha256 ${UPSTREAM_FILES[0].sha256}, got `,
    );
  });

  it('loading without the data says the command that installs it', async () => {
    const dir = await temp();
    await expect(loadTauDomain('retail', { dataDir: dir })).rejects.toThrow(
      /Install it with: npx qitos tau-bench fetch --data-dir /,
    );
  });

  it('the data dir: --data-dir, else QITOS_TAU_BENCH_DATA, else XDG_CACHE_HOME/qitos/tau-bench/<commit>', () => {
    expect(tauDataDir({ dataDir: '/x/y', env: { QITOS_TAU_BENCH_DATA: '/a' } })).toBe('/x/y');
    expect(tauDataDir({ env: { QITOS_TAU_BENCH_DATA: '/a', XDG_CACHE_HOME: '/c' } })).toBe('/a');
    expect(tauDataDir({ env: { XDG_CACHE_HOME: '/c' } })).toBe(`/c/qitos/tau-bench/${TAU_BENCH_COMMIT}`);
  });

  const installed = tauDataInstalled(tauDataDir());
  it.skipIf(!installed)(
    'downloads from the pinned raw GitHub URLs (a local fetch serving the files), checks and ' +
      'loads them (install: npx qitos tau-bench fetch)',
    async () => {
      const dir = await temp();
      const asked: string[] = [];
      const fakeFetch = (async (url: string | URL) => {
        asked.push(String(url));
        const path = UPSTREAM_FILES.find((f) => upstreamUrl(f.path) === String(url))?.path;
        if (!path) return new Response('nope', { status: 404 });
        return new Response(readUpstreamFile(tauDataDir(), path));
      }) as typeof fetch;
      const result = await installTauData({ dataDir: join(dir, 'data'), fetch: fakeFetch });
      expect(result.files).toBe(UPSTREAM_FILES.length);
      expect(result.license).toContain('MIT License');
      expect(asked[0]).toBe(`https://raw.githubusercontent.com/sierra-research/tau-bench/${TAU_BENCH_COMMIT}/LICENSE`);
      const domain = await loadTauDomain('airline', { dataDir: join(dir, 'data') });
      expect(domain.tasks('test')).toHaveLength(50);
      // a corrupted stored file is caught when it is read
      await mkdir(join(dir, 'data', 'files', 'tau_bench', 'envs', 'airline'), { recursive: true });
      const { gzipSync } = await import('node:zlib');
      await writeFile(join(dir, 'data', 'files', 'tau_bench', 'envs', 'airline', 'wiki.md.gz'), gzipSync('tampered'));
      await expect(loadTauDomain('airline', { dataDir: join(dir, 'data') })).rejects.toThrow(
        /installed tau_bench\/envs\/airline\/wiki.md is corrupt/,
      );
      await rm(join(dir, 'data'), { recursive: true });
    },
  );
});
