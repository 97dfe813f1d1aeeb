import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkManifestSignature, manifestSignature } from '../../src/trace/index.js';

const key = Buffer.alloc(32, 7);
const otherKey = Buffer.alloc(32, 8);
const manifestLike = fc.dictionary(
  fc.string({ maxLength: 8 }).filter((k) => k !== 'signature'),
  fc.jsonValue({ maxDepth: 3 }),
  { minKeys: 1, maxKeys: 6 },
);

describe('manifest signatures', () => {
  it('hold through a write and read in any key order, and fail for any changed value, another key, or none', () => {
    fc.assert(
      fc.property(manifestLike, fc.jsonValue({ maxDepth: 2 }), (m, other) => {
        const signed = JSON.parse(JSON.stringify({ ...m, signature: manifestSignature(m, key) }));
        expect(checkManifestSignature(signed, key)).toBe('signed');
        const reordered = Object.fromEntries(Object.entries(signed).reverse());
        expect(checkManifestSignature(reordered, key)).toBe('signed');
        expect(checkManifestSignature(signed, otherKey)).toBe('mismatch');
        const k = Object.keys(m)[0];
        if (JSON.stringify(other) !== JSON.stringify(signed[k]))
          expect(checkManifestSignature({ ...signed, [k]: other }, key)).toBe('mismatch');
        const { signature: _s, ...unsigned } = signed;
        expect(checkManifestSignature(unsigned, key)).toBe('unsigned');
        expect(checkManifestSignature({ ...unsigned, signature: 'zz' }, key)).toBe('mismatch');
      }),
    );
  });
});
