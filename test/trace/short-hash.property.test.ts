import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shortHash } from '../../src/trace/index.js';

// Traces written before a change of how the hash is computed are drift-checked against new ones, so the value
// must stay the first 16 hex digits of the text's UTF-8 SHA-256, whichever Node API computes it.
describe('shortHash', () => {
  it('is the first 16 hex digits of the SHA-256 of the UTF-8 text, for any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        expect(shortHash(text)).toBe(createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex').slice(0, 16));
      }),
    );
  });

  it('matches a known vector', () => {
    expect(shortHash('abc')).toBe('ba7816bf8f01cfea');
    expect(shortHash('')).toBe('e3b0c44298fc1c14');
  });
});
