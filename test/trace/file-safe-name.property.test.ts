import fc from 'fast-check';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileSafeName } from '../../src/trace/index.js';

const hostile = fc.oneof(
  fc.string(),
  fc.string({ unit: fc.constantFrom('.', '/', '\\', '\0', 'a', 'A', ' ', '-') }),
  fc.constantFrom('..', '.', '', '../../x', '/etc/passwd', 'C:\\x', '.hidden'),
);

describe('fileSafeName', () => {
  it('any name is one plain file name inside the folder it is joined to, and distinct names stay distinct', () => {
    fc.assert(
      fc.property(hostile, hostile, fc.boolean(), (a, b, lowerCase) => {
        const n = fileSafeName(a, { lowerCase });
        expect(n).toMatch(/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/);
        expect(n.length).toBeLessThanOrEqual(89);
        expect(resolve('/work/here', n)).toBe(join('/work/here', n));
        if (a !== b) expect(fileSafeName(b, { lowerCase })).not.toBe(n);
      }),
    );
  });

  it('keeps a name that is already safe, and marks a changed one with its hash', () => {
    expect(fileSafeName('20250101T120000-abc123')).toBe('20250101T120000-abc123');
    expect(fileSafeName('../../x')).toMatch(/^_\._\.\._x-[0-9a-f]{8}$/);
    expect(fileSafeName('Task-A', { lowerCase: true })).not.toBe(fileSafeName('task-a', { lowerCase: true }));
  });
});
