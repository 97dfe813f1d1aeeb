import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { writePerformanceSection } from '../../benchmarks/perf/performance-doc.js';

/** A benchmark run leaves the tree clean unless told to record its figures (`npm run bench:x -- --write`). */
describe('writePerformanceSection (benchmarks/perf)', () => {
  let dir: string;
  let doc: string;
  const before = '# Performance\n\nintro\n\n## Kernel\n\nold kernel figures\n\n## Policies\n\npolicy figures\n';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'qitos-perf-doc-'));
    doc = join(dir, 'performance.md');
    await writeFile(doc, before);
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await rm(dir, { recursive: true, force: true });
  });

  it('without --write prints the section and leaves the doc as it was', async () => {
    writePerformanceSection('## Kernel\n\nnew kernel figures\n', { argv: ['node', 'kernel.ts'], doc });
    expect(await readFile(doc, 'utf8')).toBe(before);
    expect(String(vi.mocked(console.log).mock.calls[0]?.[0])).toContain('new kernel figures');
    expect(String(vi.mocked(console.log).mock.calls[0]?.[0])).toContain('--write');
  });

  it('with --write replaces the section of the same heading and keeps the others', async () => {
    writePerformanceSection('## Kernel\n\nnew kernel figures\n', { argv: ['node', 'kernel.ts', '--write'], doc });
    expect(await readFile(doc, 'utf8')).toBe(
      '# Performance\n\nintro\n\n## Kernel\n\nnew kernel figures\n\n## Policies\n\npolicy figures\n',
    );
    writePerformanceSection('## Server\n\nserver figures\n', { argv: ['--write'], doc });
    expect(await readFile(doc, 'utf8')).toMatch(/## Policies\n\npolicy figures\n\n## Server\n\nserver figures\n$/);
  });

  it('refuses a section without a "## " heading, naming what it got', () => {
    expect(() => writePerformanceSection('Kernel\nfigures\n', { argv: ['--write'], doc })).toThrow(
      /must start with a "## " heading line, got: "Kernel"/,
    );
  });
});
