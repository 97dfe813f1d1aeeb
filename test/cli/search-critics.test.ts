import { afterEach, describe, expect, it } from 'vitest';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { qitos, tempDir } from '../helpers/cli-harness.js';
import { readTrace } from '../../src/trace/index.js';

const PATH_AGENT = resolve(__dirname, '../kit/search/path-agent.ts');
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => cleanup?.());

describe('search and critics from the config; fork --branch', () => {
  it('a best-first run backtracks; fork --at k --branch j runs step k again on another candidate', async () => {
    const t = await tempDir();
    cleanup = t.cleanup;
    await writeFile(join(t.dir, 'qitos.yaml'), 'search:\n  type: best-first\ncritics:\n  - type: pass-through\n');
    const run = JSON.parse((await qitos(['run', PATH_AGENT, '-t', 'find G', '-c', 'qitos.yaml', '--json'], t.dir)).out);
    expect(run.finalResult).toBe('S>B>G');
    const steps = (await readTrace(run.traceDir)).steps;
    expect(steps[1].branch?.chosen).toEqual({ from: 'frontier', index: 1, fromStep: 1 });
    expect(steps[1].critiques?.[0]).toEqual({ critic: 'pass-through', verdict: { action: 'continue', score: 1 } });

    const fork = await qitos(['fork', run.traceDir, '--at', '2', '--branch', '0', '--json'], t.dir);
    const out = JSON.parse(fork.out);
    expect(out.finalResult).toBe('stuck at A1');
    expect(out.parent).toMatchObject({ atStep: 1, branch: 0 });
    const forked = await readTrace(out.traceDir);
    expect(forked.steps[0]).toMatchObject({
      step: 2,
      decision: { mode: 'act', actions: [{ name: 'move', args: { to: 'A1' } }] },
    });

    const notBranch = await qitos(['fork', run.traceDir, '--at', '4', '--branch', '0'], t.dir);
    expect(notBranch.code).not.toBe(0);
    expect(notBranch.err).toMatch(/step 4 of .* is not a branch step \(it recorded no candidates\)/);
    const outOfRange = await qitos(['fork', run.traceDir, '--at', '1', '--branch', '5'], t.dir);
    expect(outOfRange.err).toMatch(/step 1 of .* has candidates 0\.\.1; --branch 5 is not one of them/);

    // A trace from elsewhere (not signed here): its candidates are someone else's tool calls, run only on --trust-trace.
    const foreign = join(t.dir, 'foreign');
    await cp(run.traceDir, foreign, { recursive: true });
    const manifestPath = join(foreign, 'manifest.json');
    await writeFile(
      manifestPath,
      JSON.stringify({ ...JSON.parse(await readFile(manifestPath, 'utf8')), signature: undefined }),
    );
    const refused = await qitos(['fork', foreign, '--at', '2', '--branch', '0', '--agent', PATH_AGENT], t.dir);
    expect(refused.code).not.toBe(0);
    expect(refused.err).toMatch(
      /refusing to use what trace .* names, because .*--branch \(recorded candidate 0: its tool calls run on this machine\)/,
    );
    const trusted = await qitos(
      ['fork', foreign, '--at', '2', '--branch', '0', '--agent', PATH_AGENT, '--trust-trace', '--json'],
      t.dir,
    );
    expect(JSON.parse(trusted.out).finalResult).toBe('stuck at A1');
  });

  it('an unknown search type is refused at load, naming the field', async () => {
    const t = await tempDir();
    cleanup = t.cleanup;
    await writeFile(join(t.dir, 'qitos.yaml'), 'search:\n  type: sideways\n');
    const r = await qitos(['run', PATH_AGENT, '-t', 'x', '-c', 'qitos.yaml'], t.dir);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/search\.type/);
  });
});
