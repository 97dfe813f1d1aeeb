import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkEmbeddings } from '../../../src/core/index.js';
import { hashText, hashingEmbedder } from '../../../src/models/index.js';

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);

describe('hashingEmbedder', () => {
  it('is deterministic, unit length, of the declared dimension (property)', async () => {
    const e = hashingEmbedder({ dimensions: 128 });
    const seed = Date.now() % 2 ** 31;
    console.log(`hashingEmbedder property seed: ${seed}`);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ maxLength: 200 }), { minLength: 1, maxLength: 5 }), async (texts) => {
        const a = await e.embed(texts);
        expect(checkEmbeddings(e, texts.length, a)).toEqual(a);
        expect(await e.embed(texts)).toEqual(a);
        for (const [i, v] of a.entries()) {
          const norm = Math.sqrt(dot(v, v));
          // a text without letters or digits (after stop words) has no features: the zero vector
          if (norm === 0) expect(hashText(texts[i], 128).every((x) => x === 0)).toBe(true);
          else expect(norm).toBeCloseTo(1, 9);
        }
      }),
      { seed, numRuns: 200 },
    );
  });

  it('scores shared words and word stems above unrelated text; ignores case, width and stop words', async () => {
    const [q, near, stem, far] = await hashingEmbedder().embed([
      'style the slides',
      'Style your slides quickly',
      'styling slideshows',
      'bake sourdough bread',
    ]);
    expect(dot(q, near)).toBeGreaterThan(0.6); // the same words
    expect(dot(q, stem)).toBeGreaterThan(0.1); // only shared stems ("styl", "slide"), through character trigrams
    expect(dot(q, far)).toBeLessThan(0.05);
    const [a, b] = await hashingEmbedder().embed(['THE Slides', 'ｓｌｉｄｅｓ']); // full-width letters fold by NFKC
    expect(dot(a, b)).toBeCloseTo(1, 9);
  });

  it('matches Chinese, Japanese and Korean text by characters and character pairs', async () => {
    const [q, near, far] = await hashingEmbedder().embed(['设计幻灯片主题', '为幻灯片设计配色主题', '烤面包']);
    expect(dot(q, near)).toBeGreaterThan(0.5);
    expect(dot(q, far)).toBeLessThan(0.1);
  });

  it('has an id naming its version and size, and refuses bad sizes', () => {
    expect(hashingEmbedder()).toMatchObject({ id: 'hashing:v1-512', dimensions: 512 });
    expect(() => hashingEmbedder({ dimensions: 4 })).toThrow(
      'hashingEmbedder: dimensions must be an integer from 8 to 65536, got 4',
    );
  });
});

describe('checkEmbeddings', () => {
  const model = { id: 'm', dimensions: 2 };
  it('passes good vectors and names every kind of bad answer', () => {
    expect(
      checkEmbeddings(model, 2, [
        [1, 0],
        [0, 1],
      ]),
    ).toEqual([
      [1, 0],
      [0, 1],
    ]);
    expect(() => checkEmbeddings(model, 2, [[1, 0]])).toThrow('embedding model m returned 1 vectors for 2 texts');
    expect(() => checkEmbeddings(model, 1, [[1, 0, 0]])).toThrow(
      'embedding model m returned a vector of length 3 for text 1; expected 2',
    );
    expect(() => checkEmbeddings({ id: 'm' }, 2, [[1, 0], [1]])).toThrow(
      'returned a vector of length 1 for text 2; expected 2',
    );
    expect(() => checkEmbeddings(model, 1, [[Infinity, 0]])).toThrow(
      'embedding model m returned invalid vectors: [0][0] must be a finite number',
    );
    expect(() => checkEmbeddings(model, 1, [[]])).toThrow('[0] must not be empty');
    expect(() => checkEmbeddings(model, 1, { data: [] })).toThrow(/embedding model m returned invalid vectors/);
  });
});
