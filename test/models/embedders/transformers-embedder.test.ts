import { cpSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolRetrievalService, loadSkills } from '../../../src/kit/skills/index.js';
import { transformersEmbedder } from '../../../src/models/index.js';
import { tempDir } from '../../helpers/kernel-fixtures.js';
import { writeTinyBert } from '../../helpers/tiny-bert.js';

const FIXTURES = resolve(__dirname, '../../fixtures/skills');
const WORDS = [
  'theme',
  'slides',
  'brand',
  'color',
  '##s',
  'style',
  'write',
  'company',
  'newsletter',
  ':',
  ',',
  '.',
  "'",
  '-',
  '(',
  ')',
  '/',
];

// No test here may touch the network: fetch fails loudly and counts the attempts.
let fetches: string[];
let realFetch: typeof fetch;
beforeEach(() => {
  fetches = [];
  realFetch = globalThis.fetch;
  globalThis.fetch = (async (input: unknown) => {
    fetches.push(String(input));
    throw new Error(`network access in an offline test: ${String(input)}`);
  }) as typeof fetch;
});
afterEach(() => {
  globalThis.fetch = realFetch;
});

describe('transformersEmbedder (real transformers.js pipeline, tiny generated BERT model, offline)', () => {
  it('runs pipeline("feature-extraction") from the local folder: WordPiece tokens, mean pooling, L2 norm', async () => {
    const bert = await writeTinyBert(join(await tempDir(), 'tiny-bert'), WORDS, 8);
    const e = transformersEmbedder({ modelPath: bert.dir });
    expect(e.id).toBe(`transformers:${bert.dir}:fp32:mean`);
    const [a, b, c] = await e.embed(['Theme slides', 'brand colors', 'brand xyzzy']);
    const close = (got: number[], want: number[]) => got.forEach((x, i) => expect(x).toBeCloseTo(want[i], 5));
    close(a, bert.reference(['theme', 'slides']));
    close(b, bert.reference(['brand', 'color', '##s'])); // "colors" is not in the vocabulary: color + ##s
    close(c, bert.reference(['brand', '[UNK]']));
    expect(a).toHaveLength(8);
    expect(fetches).toEqual([]);
  });

  it('gives the same vectors in batches as in one call', async () => {
    const bert = await writeTinyBert(join(await tempDir(), 'tiny-bert'), WORDS, 8);
    const texts = ['theme', 'slides', 'brand colors', 'write the company newsletter', 'style'];
    const one = await transformersEmbedder({ modelPath: bert.dir }).embed(texts);
    const batched = await transformersEmbedder({ modelPath: bert.dir, batchSize: 2 }).embed(texts);
    batched.forEach((v, i) => v.forEach((x, j) => expect(x).toBeCloseTo(one[i][j], 5)));
  });

  it('drives skill retrieval over the fixture skills', async () => {
    const bert = await writeTinyBert(join(await tempDir(), 'tiny-bert'), WORDS, 16);
    const root = await tempDir();
    cpSync(FIXTURES, root, { recursive: true });
    rmSync(join(root, 'README.md'));
    const { service } = await ToolRetrievalService.open(root, {
      embedder: transformersEmbedder({ modelPath: bert.dir }),
    });
    const brand = (await loadSkills([root])).get('brand-guidelines')!;
    const [hit] = await service.search(`brand guidelines: ${brand.description}`, { top: 1 });
    expect(hit.name).toBe('brand-guidelines');
    expect(hit.score).toBeCloseTo(1, 4);
    expect(fetches).toEqual([]);
  });

  it('a folder without a model is an error that says what to place there; nothing is fetched', async () => {
    const dir = await tempDir();
    const e = transformersEmbedder({ modelPath: dir });
    await expect(e.embed(['x'])).rejects.toThrow(
      `transformers embedder: the model folder ${dir} lacks config.json, tokenizer.json, ` +
        `tokenizer_config.json, onnx/model.onnx. Place a transformers.js model there`,
    );
    await expect(e.embed(['x'])).rejects.toThrow(/nothing is downloaded at run time/);
    // a quantized variant names its own file
    await expect(transformersEmbedder({ modelPath: dir, dtype: 'q8' }).embed(['x'])).rejects.toThrow(
      /onnx\/model_quantized\.onnx/,
    );
    expect(fetches).toEqual([]);
  });

  it('a damaged model file is an error naming the folder', async () => {
    const bert = await writeTinyBert(join(await tempDir(), 'tiny-bert'), WORDS, 8);
    (await import('node:fs')).writeFileSync(join(bert.dir, 'onnx/model.onnx'), 'not a model');
    await expect(transformersEmbedder({ modelPath: bert.dir }).embed(['x'])).rejects.toThrow(
      `transformers embedder: cannot load the model in ${bert.dir}:`,
    );
  });

  it('refuses bad options at construction', () => {
    expect(() => transformersEmbedder({ modelPath: '/m', dtype: 'fp64' as never })).toThrow(
      'transformersEmbedder: unknown dtype "fp64"',
    );
    expect(() => transformersEmbedder({ modelPath: '/m', batchSize: 0 })).toThrow(
      'transformersEmbedder: batchSize must be a positive integer, got 0',
    );
  });
});
