import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeVector, encodeVector, parseSkillIndex } from '../../../src/kit/skills/skill-index-file.js';

/** Vectors as embedders make them: dense, or mostly zeros (the hashing embedder on a few words). */
const vector = fc.integer({ min: 1, max: 600 }).chain((dims) =>
  fc.oneof(
    fc.array(fc.double({ min: -10, max: 10, noNaN: true }), { minLength: dims, maxLength: dims }),
    fc.array(fc.oneof(fc.constant(0), fc.double({ min: -1, max: 1, noNaN: true })), {
      minLength: dims,
      maxLength: dims,
    }),
    fc
      .array(fc.tuple(fc.nat(dims - 1), fc.double({ min: -1, max: 1, noNaN: true })), { maxLength: 20 })
      .map((pairs) => {
        const v = new Array<number>(dims).fill(0);
        for (const [j, x] of pairs) v[j] = x;
        return v;
      }),
  ),
);

describe('skills index vector codes', () => {
  it('decode(encode(v)) is v within half a step of 1/127 of its largest component, zeros stay zero', () => {
    fc.assert(
      fc.property(vector, (v) => {
        const out = new Float32Array(v.length + 3).fill(9);
        decodeVector(encodeVector(v), v.length, out, 3);
        expect(out.slice(0, 3)).toEqual(new Float32Array([9, 9, 9]));
        const max = Math.max(0, ...v.map(Math.abs));
        v.forEach((x, j) => {
          expect(Math.abs(out[3 + j] - x)).toBeLessThanOrEqual(max / 254 + max * 1e-6 + 1e-12);
          if (x === 0) expect(out[3 + j]).toBe(0);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('a mostly-zero vector is stored sparse: pairs for a few non-zeros, a bitmap for a few hundred, else dense', () => {
    const v = new Array<number>(512).fill(0);
    v[3] = 0.5;
    v[400] = -0.25;
    expect(Buffer.from(encodeVector(v), 'base64').length).toBe(7 + 2 * 3);
    const half = v.map((_, j) => (j % 2 ? 0 : j + 1));
    expect(Buffer.from(encodeVector(half), 'base64').length).toBe(5 + 64 + 256);
    expect(Buffer.from(encodeVector(v.map((_, j) => j + 1)), 'base64').length).toBe(5 + 512);
  });

  it('a code of another length or a damaged one is an error, never a wrong vector', () => {
    const dense = encodeVector([1, 2, 3, 4]);
    expect(() => decodeVector(dense, 5, new Float32Array(5))).toThrow(/holds 4 components, not 5/);
    const sparse = encodeVector(Array.from({ length: 100 }, (_, j) => (j === 99 ? 1 : 0)));
    expect(() => decodeVector(sparse, 4, new Float32Array(100))).toThrow(/names component 99 of 4/);
    const bitmap = encodeVector(Array.from({ length: 16 }, (_, j) => (j % 2 ? 1 : 0)));
    expect(() => decodeVector(bitmap, 8, new Float32Array(16))).toThrow(/bytes too many for 8 components/);
    expect(() => decodeVector('AA', 4, new Float32Array(4))).toThrow(/cut short/);
    expect(() => encodeVector([1, Number.NaN])).toThrow(/not a finite number/);
  });

  it('parses format 2 only, naming what it found', () => {
    expect(() => parseSkillIndex('{"version":1,"items":[]}')).toThrow(/version 1, an older format/);
    expect(() => parseSkillIndex('{"format":"qitos-skills-index","version":2,"dims":4,"items":[{}]}')).toThrow(
      /does not match format 2/,
    );
    expect(() => parseSkillIndex('{"version":1,"items":[{"id":"brand-gu')).toThrow(SyntaxError);
  });
});
