import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EmbeddingModel } from '../../../src/index.js';
import { ToolRetrievalService } from '../../../src/kit/skills/index.js';
import { hashingEmbedder } from '../../../src/models/index.js';
import { tempDir } from '../../helpers/kernel-fixtures.js';
import { skillMd } from '../../helpers/zip-writer.js';
import { decodeVector } from '../../../src/kit/skills/skill-index-file.js';

const FIXTURES = resolve(__dirname, '../../fixtures/skills');

async function rootWithFixtures(): Promise<string> {
  const root = await tempDir();
  cpSync(FIXTURES, root, { recursive: true });
  rmSync(join(root, 'README.md'));
  return root;
}

/** An embedder that counts the texts it embeds (wrapping the hashing one). */
function counting(inner = hashingEmbedder()): EmbeddingModel & { texts: string[] } {
  const texts: string[] = [];
  return { id: inner.id, dimensions: inner.dimensions, texts, embed: async (t) => (texts.push(...t), inner.embed(t)) };
}

describe('ToolRetrievalService', () => {
  it('indexes every skill of a root on open and ranks them by meaning, with scores', async () => {
    const root = await rootWithFixtures();
    const { service, report } = await ToolRetrievalService.open(root);
    expect(report).toEqual({
      added: ['brand-guidelines', 'internal-comms', 'theme-factory'],
      updated: [],
      removed: [],
    });
    const hits = await service.search('apply a color theme to my slides');
    expect(hits.map((h) => h.name)).toEqual(['theme-factory', 'brand-guidelines', 'internal-comms']);
    expect(hits[0]).toMatchObject({
      path: join(root, 'theme-factory/SKILL.md'),
      description: expect.stringMatching(/^Toolkit for styling/),
    });
    expect(hits[0].score).toBeGreaterThan(hits[1].score);
    expect(hits[0].score).toBeLessThanOrEqual(1);
    // top and threshold
    expect(await service.search('apply a color theme to my slides', { top: 1 })).toEqual([hits[0]]);
    expect(
      (await service.search('apply a color theme to my slides', { threshold: hits[1].score + 1e-9 })).map(
        (h) => h.name,
      ),
    ).toEqual(['theme-factory']);
    await expect(service.search('  ')).rejects.toThrow('the search query is empty');
    await expect(service.search('x', { top: 0 })).rejects.toThrow('top must be a positive integer, got 0');
  });

  it('stores the index in one index.json under the root, one per embedder, vectors quantised to 8 bits', async () => {
    const root = await rootWithFixtures();
    const { service } = await ToolRetrievalService.open(root);
    await ToolRetrievalService.open(root, { embedder: hashingEmbedder({ dimensions: 64 }) });
    const dirs = readdirSync(join(root, '.qitos/index')).sort();
    expect(dirs).toEqual([
      expect.stringMatching(/^hashing-v1-512-[0-9a-f]{10}$/),
      expect.stringMatching(/^hashing-v1-64-[0-9a-f]{10}$/),
    ]);
    const index = JSON.parse(readFileSync(join(service.indexDir, 'index.json'), 'utf8'));
    expect(index).toMatchObject({ format: 'qitos-skills-index', version: 2, dims: 512 });
    expect(index.items).toHaveLength(3);
    const item = index.items[0];
    expect(item).toMatchObject({ name: expect.any(String), hash: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    // the stored vector is the embedder's, within the 8-bit rounding
    const [exact] = await hashingEmbedder().embed([`${item.name.replace(/-/g, ' ')}: ${item.description}`]);
    const stored = new Float32Array(512);
    decodeVector(item.v, 512, stored);
    const max = Math.max(...exact.map(Math.abs));
    exact.forEach((x, j) => expect(Math.abs(stored[j] - x)).toBeLessThanOrEqual(max / 254 + 1e-7));
  });

  it('an index of the older vectra format is rebuilt from the folders, and the report says so', async () => {
    const root = await rootWithFixtures();
    const { service } = await ToolRetrievalService.open(root);
    writeFileSync(
      join(service.indexDir, 'index.json'),
      JSON.stringify({ version: 1, metadata_config: {}, items: [{ id: 'x', metadata: {}, vector: [1], norm: 1 }] }),
    );
    const { report } = await ToolRetrievalService.open(root);
    expect(report.rebuilt).toMatch(
      /could not be read \(not a skills index of format 2 \(version 1, an older format\)\)/,
    );
    expect(report.added).toHaveLength(3);
    expect((await service.search('bake bread', { top: 1 })).length).toBe(1);
  });

  it('re-embeds only skills whose SKILL.md content changed; adds new ones, drops removed ones', async () => {
    const root = await rootWithFixtures();
    const embedder = counting();
    const { service } = await ToolRetrievalService.open(root, { embedder });
    expect(embedder.texts).toHaveLength(3);
    // same content written again (new mtime): nothing to embed
    writeFileSync(join(root, 'brand-guidelines/SKILL.md'), readFileSync(join(root, 'brand-guidelines/SKILL.md')));
    expect(await service.sync()).toEqual({ added: [], updated: [], removed: [] });
    expect(embedder.texts).toHaveLength(3);
    writeFileSync(join(root, 'theme-factory/SKILL.md'), skillMd('theme-factory', 'Bakes sourdough bread.'));
    await mkdir(join(root, 'gardening'));
    writeFileSync(join(root, 'gardening/SKILL.md'), skillMd('gardening', 'Plans a vegetable garden.'));
    rmSync(join(root, 'internal-comms'), { recursive: true });
    expect(await service.sync()).toEqual({
      added: ['gardening'],
      updated: ['theme-factory'],
      removed: ['internal-comms'],
    });
    expect(embedder.texts.slice(3)).toEqual([
      'gardening: Plans a vegetable garden.',
      'theme factory: Bakes sourdough bread.',
    ]);
    expect((await service.search('bake bread', { top: 1 }))[0]).toMatchObject({
      name: 'theme-factory',
      description: 'Bakes sourdough bread.',
    });
    expect(await service.size()).toBe(3);
  });

  it("sees another instance's writes; rebuilds a damaged index file and says so", async () => {
    const root = await rootWithFixtures();
    const { service: a } = await ToolRetrievalService.open(root);
    const { service: b } = await ToolRetrievalService.open(root);
    await mkdir(join(root, 'gardening'));
    writeFileSync(join(root, 'gardening/SKILL.md'), skillMd('gardening', 'Plans a vegetable garden.'));
    await b.sync();
    expect((await a.search('vegetable garden', { top: 1 }))[0].name).toBe('gardening');

    writeFileSync(join(a.indexDir, 'index.json'), '{"version":1,"items":[{"id":"brand-gu'); // a save cut short by a crash
    const hits = await a.search('vegetable garden', { top: 1 });
    expect(hits[0].name).toBe('gardening');
    expect(a.warnings).toEqual([
      expect.stringMatching(/^the index in .* could not be read \(.*\); it was rebuilt from the skill folders$/),
    ]);
    expect(JSON.parse(readFileSync(join(a.indexDir, 'index.json'), 'utf8')).items).toHaveLength(4);

    const reopened = await ToolRetrievalService.open(root);
    expect(reopened.report).toEqual({ added: [], updated: [], removed: [] });
    rmSync(a.indexDir, { recursive: true });
    expect((await ToolRetrievalService.open(root)).report.added).toHaveLength(4);
  });

  it('an embedder that returns broken vectors is an error naming it, and nothing is indexed', async () => {
    const root = await rootWithFixtures();
    const bad: EmbeddingModel = {
      id: 'bad:model',
      embed: async (t) => t.map((_, i) => (i === 1 ? [Number.NaN, 1] : [1, 0])),
    };
    await expect(ToolRetrievalService.open(root, { embedder: bad })).rejects.toThrow(
      'embedding model bad:model returned invalid vectors: [1][0] must be a finite number',
    );
    const short: EmbeddingModel = { id: 'short:model', embed: async (t) => t.slice(1).map(() => [1, 0]) };
    await expect(ToolRetrievalService.open(root, { embedder: short })).rejects.toThrow(
      'embedding model short:model returned 2 vectors for 3 texts',
    );
  });

  it('a root that is not a folder is an error naming it', async () => {
    await expect(ToolRetrievalService.open('/nonexistent/skills')).rejects.toThrow(
      'skills root /nonexistent/skills is not a folder',
    );
  });
});
