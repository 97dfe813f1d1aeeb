import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { formatNote, markdownMemory, parseNotes } from '../../../src/kit/memory/index.js';
import { tempDir } from '../../helpers/kernel-fixtures.js';
import { memoryContext } from './memory-fixtures.js';

describe('markdownMemory', () => {
  it('writes notes a person can read, and the next run reads them back (reset never empties the file)', async () => {
    const path = join(await tempDir(), 'ws', '.qitos', 'memory.md');
    const ctx = memoryContext();
    const first = markdownMemory({ path });
    await first.reset(ctx);
    await first.append({ step: 2, role: 'lesson', content: 'The EUR rate is 1.08 USD.' }, ctx);
    await first.append({ step: 3, role: 'lesson', content: 'Run tests with `npm test`.\n# not a heading' }, ctx);
    const text = await readFile(path, 'utf8');
    expect(text).toBe(
      '# Agent memory\n\n## lesson (step 2)\nThe EUR rate is 1.08 USD.\n\n## lesson (step ' +
        '3)\nRun tests with `npm test`.\n\\# not a heading\n\n',
    );
    // A person adds a note by hand between runs.
    await writeFile(path, text + '## Deployment\nDeploy with make release on Fridays only.\n');
    const second = markdownMemory({ path });
    await second.reset(ctx);
    const found = await second.retrieve('what is the EUR rate in USD?', 1, ctx);
    expect(found[0]).toMatchObject({ role: 'lesson', step: 2, content: 'The EUR rate is 1.08 USD.' });
    expect((found[0].metadata as { score: number }).score).toBeGreaterThan(0.2);
    expect((await second.retrieve('deploy release', 1, ctx))[0]).toMatchObject({ role: 'Deployment', step: 0 });
    expect((await second.retrieve('npm tests', 1, ctx))[0].content).toBe('Run tests with `npm test`.\n# not a heading');
  });

  it('evict keeps the newest maxRecords notes in the file', async () => {
    const path = join(await tempDir(), 'memory.md');
    const ctx = memoryContext();
    const m = markdownMemory({ path, maxRecords: 2 });
    await m.reset(ctx);
    for (let i = 1; i <= 4; i++) await m.append({ step: i, role: 'note', content: `fact ${i}` }, ctx);
    expect(await m.evict(ctx)).toBe(2);
    expect(parseNotes(await readFile(path, 'utf8')).map((r) => r.content)).toEqual(['fact 3', 'fact 4']);
  });

  it('appends of concurrent runs sharing the file never interleave', async () => {
    const path = join(await tempDir(), 'memory.md');
    const ctx = memoryContext();
    const runs = [markdownMemory({ path }), markdownMemory({ path }), markdownMemory({ path })];
    await Promise.all(
      runs.map((m, r) =>
        Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            m.append({ step: i, role: `run${r}`, content: `line a ${i}\nline b ${i}` }, ctx),
          ),
        ),
      ),
    );
    const notes = parseNotes(await readFile(path, 'utf8'));
    expect(notes).toHaveLength(60);
    for (const n of notes) expect(n.content).toMatch(/^line a (\d+)\nline b \1$/);
  });

  it('two memories in two processes on one file, appending and evicting at once, lose no note', async () => {
    const path = join(await tempDir(), 'memory.md');
    const repo = resolve(__dirname, '../../..');
    const writer = (name: string) =>
      promisify(execFile)(
        process.execPath,
        [
          '--import',
          join(repo, 'node_modules/tsx/dist/loader.mjs'),
          join(repo, 'test/fixtures/memory-writer.ts'),
          path,
          name,
          '200',
          '150',
        ],
        { timeout: 60_000 },
      );
    await Promise.all([writer('a'), writer('b')]);
    const notes = parseNotes(await readFile(path, 'utf8'));
    expect(notes).toHaveLength(150); // the last thing each writer did was an eviction
    // Every eviction keeps the newest notes of the file as it is at that moment, so what each writer has left
    // there is an unbroken run of its notes ending with its last one: a gap is an append an eviction undid.
    for (const name of ['a', 'b']) {
      const mine = notes.filter((n) => n.role === name).map((n) => Number(n.content.split(' ')[1]));
      expect(mine, name).toEqual(Array.from({ length: mine.length }, (_, i) => 200 - mine.length + i));
    }
    for (const n of notes) expect(n.content).toBe(`${n.role} ${n.step}`);
  }, 90_000);

  it('carriage returns round-trip exactly through the file; a file saved with CRLF line ends is read as lines', async () => {
    const path = join(await tempDir(), 'memory.md');
    const ctx = memoryContext();
    const m = markdownMemory({ path });
    const content = 'line one\r\nline two\r\n\r\n# heading\r\nlast\r';
    await m.append({ step: 1, role: 'note', content }, ctx);
    const again = markdownMemory({ path });
    await again.reset(ctx);
    expect(await again.retrieve('line one', 1, ctx)).toMatchObject([{ content }]);
    await writeFile(path, '# Agent memory\r\n\r\n## lesson (step 2)\r\nWritten on Windows.\r\nTwo lines.\r\n\r\n');
    expect(parseNotes(await readFile(path, 'utf8'))).toEqual([
      { step: 2, role: 'lesson', content: 'Written on Windows.\nTwo lines.' },
    ]);
  });

  it('property: any records written to the notes file parse back as the same records', () => {
    const role = fc
      .string({ minLength: 1, maxLength: 12 })
      .filter((s) => /\S/.test(s) && s === s.replace(/\s+/g, ' ').trim() && !/ \(step \d+\)$/.test(s));
    const content = fc
      .array(
        fc.oneof(
          fc.string({ maxLength: 20 }),
          fc.constantFrom('# h', '## lesson (step 3)', '\\x', '', '  ', '\r', 'a\r', '\r\r# h\r'),
        ),
        { minLength: 1, maxLength: 5 },
      )
      .map((l) => l.join('\n'));
    const record = fc.record({ step: fc.nat({ max: 999 }), role, content });
    fc.assert(
      fc.property(fc.array(record, { maxLength: 8 }), (recs) => {
        const kept = recs.filter((r) => r.role !== 'note' || r.content.trim());
        expect(parseNotes('# Agent memory\n\n' + recs.map(formatNote).join(''))).toEqual(kept);
      }),
    );
  });
});
