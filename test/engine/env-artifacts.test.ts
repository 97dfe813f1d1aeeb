import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine, decide, type Env, type EnvArtifact } from '../../src/index.js';
import { readTrace } from '../../src/trace/index.js';
import { ScriptAgent, tempDir } from '../helpers/kernel-fixtures.js';

/** An env that leaves the given artifacts and records the order of its end calls. */
function artifactEnv(artifacts: () => EnvArtifact[] | Promise<EnvArtifact[]>): Env & { calls: string[] } {
  const calls: string[] = [];
  return {
    name: 'artifacts',
    calls,
    ops: (() => undefined) as Env['ops'],
    async artifacts() {
      calls.push('artifacts');
      return artifacts();
    },
    close() {
      calls.push('close');
    },
  };
}

describe('env artifacts', () => {
  it('are collected before close and written to artifacts/ in the trace, listed in the manifest', async () => {
    const dir = await tempDir();
    const env = artifactEnv(() => [
      { name: 'repo.diff', content: 'diff --git a/x b/x\n' },
      { name: 'shot.bin', content: new Uint8Array([0, 1, 2]) },
    ]);
    const r = await new Engine({ agent: new ScriptAgent([decide.final('ok')]), env, trace: { dir } }).run('t');
    expect(env.calls).toEqual(['artifacts', 'close']);
    expect(readFileSync(join(r.traceDir!, 'artifacts', 'repo.diff'), 'utf8')).toBe('diff --git a/x b/x\n');
    expect([...readFileSync(join(r.traceDir!, 'artifacts', 'shot.bin'))]).toEqual([0, 1, 2]);
    const t = await readTrace(r.traceDir!);
    expect(t.manifest.artifacts).toEqual([
      { name: 'repo.diff', bytes: 19 },
      { name: 'shot.bin', bytes: 3 },
    ]);
    expect(t.manifest.summary?.failures).toEqual([]);
  });

  it('refuses names that are not plain file names (never a path), and keeps the run', async () => {
    const dir = await tempDir();
    const env = artifactEnv(() => [
      { name: '../escape.txt', content: 'x' },
      { name: '.hidden', content: 'x' },
      { name: 'a/b', content: 'x' },
      { name: 'ok.txt', content: 'x' },
      { name: 'ok.txt', content: 'again' },
      // Not bytes or text: writing it fails, which is recorded, and the manifest is still finalized.
      { name: 'broken.bin', content: 42 as never },
    ]);
    const r = await new Engine({ agent: new ScriptAgent([decide.final('ok')]), env, trace: { dir } }).run('t');
    expect(r.stopReason).toBe('final');
    expect(readdirSync(join(r.traceDir!, 'artifacts'))).toEqual(['ok.txt']);
    expect(readFileSync(join(r.traceDir!, 'artifacts', 'ok.txt'), 'utf8')).toBe('x');
    expect(existsSync(join(r.traceDir!, 'escape.txt'))).toBe(false);
    expect(existsSync(join(dir, 'escape.txt'))).toBe(false);
    const t = await readTrace(r.traceDir!);
    expect(t.manifest.artifacts).toEqual([{ name: 'ok.txt', bytes: 1 }]);
    expect(t.manifest.summary!.failures.map((f) => f.message)).toEqual([
      'env artifact "../escape.txt" was not written: an artifact name is a unique plain file name (letters, digits, ".", "_", "-")',
      'env artifact ".hidden" was not written: an artifact name is a unique plain file name (letters, digits, ".", "_", "-")',
      'env artifact "a/b" was not written: an artifact name is a unique plain file name (letters, digits, ".", "_", "-")',
      'env artifact "ok.txt" was not written: an artifact name is a unique plain file name (letters, digits, ".", "_", "-")',
      expect.stringMatching(/^env artifact "broken\.bin" could not be written: /),
    ]);
    expect(t.manifest.status).toBe('completed');
  });

  it('an env whose artifacts fail still closes; the failure is in the summary; no artifacts folder', async () => {
    const dir = await tempDir();
    const env = artifactEnv(() => {
      throw new Error('git is gone');
    });
    const r = await new Engine({ agent: new ScriptAgent([decide.final('ok')]), env, trace: { dir } }).run('t');
    expect(r.stopReason).toBe('final');
    expect(env.calls).toEqual(['artifacts', 'close']);
    expect(r.failures).toEqual([{ step: 1, kind: 'env', message: 'env.artifacts failed: git is gone', fatal: false }]);
    expect(existsSync(join(r.traceDir!, 'artifacts'))).toBe(false);
    expect((await readTrace(r.traceDir!)).manifest.artifacts).toBeUndefined();
  });
});
