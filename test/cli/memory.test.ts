import { afterEach, describe, expect, it } from 'vitest';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FIXTURES, qitos, tempDir } from '../helpers/cli-harness.js';

const NOTES_AGENT = join(FIXTURES, 'agents/notes-agent.ts');
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => cleanup?.());

describe('memory from the config', () => {
  it('a markdown memory carries over runs, and a replay serves the recorded retrievals whatever the notes file holds now', async () => {
    const t = await tempDir();
    cleanup = t.cleanup;
    await writeFile(join(t.dir, 'qitos.yaml'), 'memory:\n  type: markdown\n  path: notes/memory.md\n');
    const first = JSON.parse(
      (await qitos(['run', NOTES_AGENT, '-t', 'convert 10 EUR to USD', '-c', 'qitos.yaml', '--json'], t.dir)).out,
    );
    expect(first.finalResult).toBe('learned');
    expect(await readFile(join(t.dir, 'notes/memory.md'), 'utf8')).toContain(
      '## lesson (step 1)\nanswer for convert 10 EUR to USD\n',
    );
    const second = JSON.parse(
      (await qitos(['run', NOTES_AGENT, '-t', 'convert 10 EUR to USD', '-c', 'qitos.yaml', '--json'], t.dir)).out,
    );
    expect(second.finalResult).toBe('remembered: answer for convert 10 EUR to USD');

    await rm(join(t.dir, 'notes'), { recursive: true });
    const replay = await qitos(['replay', second.traceDir, '--json'], t.dir);
    const out = JSON.parse(replay.out);
    expect(out.matched).toBe(true);
    expect(out.replay.finalResult).toBe('remembered: answer for convert 10 EUR to USD');
  });

  it('a bad memory section is refused at load, naming the field', async () => {
    const t = await tempDir();
    cleanup = t.cleanup;
    await writeFile(join(t.dir, 'qitos.yaml'), 'memory:\n  type: window\n  size: -1\n');
    const r = await qitos(['run', NOTES_AGENT, '-t', 'x', '-c', 'qitos.yaml'], t.dir);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/memory\.size/);
  });
});
