import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostEnv } from '../../src/envs/index.js';
import { grepTool, readTool, writeTool } from '../../src/kit/tools/index.js';
import { callTool } from '../helpers/qitos-env-fixtures.js';

let root: string;
let env: HostEnv;

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'qitos-special-')));
  // A command run by the agent can make a FIFO; opening one for reading waits for a writer forever.
  execFileSync('mkfifo', [path.join(root, 'pipe')]);
  writeFileSync(path.join(root, 'notes.txt'), 'needle here\n');
  env = new HostEnv({ root });
});

afterAll(() => {
  env.close();
  rmSync(root, { recursive: true, force: true });
});

describe('special files in a host workspace', () => {
  it('reading or writing a named pipe is refused at once instead of hanging', async () => {
    await expect(env.files.readText('pipe')).rejects.toThrow(
      'cannot read "pipe": it is a named pipe (FIFO), not a regular file',
    );
    await expect(env.files.writeText('pipe', 'x')).rejects.toThrow(/cannot write "pipe": it is a named pipe/);
  });

  it('read reports the pipe as an error; grep skips it and still finds matches elsewhere', async () => {
    const r = await callTool(readTool(), { path: 'pipe' }, env, { timeoutMs: 2000 });
    expect(r.status).toBe('error');
    expect(r.seen).toMatch(/named pipe \(FIFO\)/);
    const g = await callTool(grepTool(), { pattern: 'needle' }, env, { timeoutMs: 2000 });
    expect(g.status).toBe('success');
    expect(g.seen).toMatch(/^notes\.txt:1: needle here/);
    expect(g.seen).toMatch(/Could not read 1 file \(pipe\)/);
  });

  it('write still replaces a regular file whole (truncation happens after the type check)', async () => {
    writeFileSync(path.join(root, 'long.txt'), 'x'.repeat(1000));
    const w = await callTool(writeTool(), { path: 'long.txt', content: 'short' }, env);
    expect(w.status).toBe('success');
    expect(readFileSync(path.join(root, 'long.txt'), 'utf8')).toBe('short');
  });
});
