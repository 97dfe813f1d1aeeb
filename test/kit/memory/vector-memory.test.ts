import { describe, expect, it } from 'vitest';
import { readFile, appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { vectorMemory } from '../../../src/kit/memory/index.js';
import type { EmbeddingModel } from '../../../src/index.js';
import { tempDir } from '../../helpers/kernel-fixtures.js';
import { memoryContext } from './memory-fixtures.js';

const FACTS = [
  'The staging database password rotates every Monday.',
  'Unit tests run with npm test and take two minutes.',
  'The EUR to USD exchange rate used in reports is 1.08.',
  'Deploys go out through the release pipeline on Fridays.',
];

describe('vectorMemory', () => {
  it('retrieves by similarity to the query, best first, with scores', async () => {
    const m = vectorMemory();
    const ctx = memoryContext();
    for (const [i, content] of FACTS.entries()) await m.append({ step: i + 1, role: 'fact', content }, ctx);
    const found = await m.retrieve('which exchange rate for EUR in USD?', 2, ctx);
    expect(found[0].content).toBe(FACTS[2]);
    const [a, b] = found.map((r) => (r.metadata as { score: number }).score);
    expect(a).toBeGreaterThan(b);
    expect((await m.retrieve('how do I run the tests', 1, ctx))[0].content).toBe(FACTS[1]);
  });

  it('with a path, the next run reads the records back; a cut last line (a crash mid-append) is skipped', async () => {
    const path = join(await tempDir(), 'mem', 'vectors.jsonl');
    const ctx = memoryContext();
    const first = vectorMemory({ path });
    await first.reset(ctx);
    for (const [i, content] of FACTS.entries()) await first.append({ step: i + 1, role: 'fact', content }, ctx);
    await appendFile(path, '{"record":{"step":9,"ro');
    const second = vectorMemory({ path });
    await second.reset(ctx);
    expect((await second.retrieve('deploy on friday', 1, ctx))[0]).toMatchObject({ step: 4, content: FACTS[3] });
    expect((await readFile(path, 'utf8')).split('\n').filter(Boolean)).toHaveLength(5);
  });

  it('skips records of another embedder in the file (vectors of two models never mix)', async () => {
    const path = join(await tempDir(), 'vectors.jsonl');
    const ctx = memoryContext();
    const other: EmbeddingModel = { id: 'other', dimensions: 2, embed: async (t) => t.map(() => [1, 0]) };
    const a = vectorMemory({ path, embedder: other });
    await a.append({ step: 1, role: 'fact', content: 'x' }, ctx);
    const b = vectorMemory({ path });
    await b.reset(ctx);
    expect(await b.retrieve('x', 5, ctx)).toEqual([]);
  });

  it('evict drops the oldest past maxRecords; a bad embedding is an error naming the model', async () => {
    const ctx = memoryContext();
    const m = vectorMemory({ maxRecords: 2 });
    for (const [i, content] of FACTS.entries()) await m.append({ step: i + 1, role: 'fact', content }, ctx);
    expect(await m.evict(ctx)).toBe(2);
    expect((await m.retrieve('password database rotates', 5, ctx)).map((r) => r.step).sort()).toEqual([3, 4]);
    const broken: EmbeddingModel = { id: 'broken', embed: async () => [[Number.NaN]] };
    await expect(vectorMemory({ embedder: broken }).append({ step: 1, role: 'x', content: 'y' }, ctx)).rejects.toThrow(
      /embedding model broken returned invalid vectors/,
    );
  });
});
