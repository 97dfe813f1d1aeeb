import fc from 'fast-check';
import { applyPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { jsonDiffText, unifiedTextDiff } from '../../src/trace/index.js';

/** Texts made of a few short lines from a small alphabet, so random pairs share lines (real hunks, not one big replace). */
const lines = fc.array(
  fc.constantFrom('alpha', 'beta', 'gamma', 'delta', '', '  indented', '- dash', '+ plus', '@@ at'),
  { maxLength: 12 },
);
const text = fc.tuple(lines, fc.boolean()).map(([ls, nl]) => ls.join('\n') + (nl && ls.length ? '\n' : ''));

describe('unifiedTextDiff', () => {
  it('one changed line: the -old and +new lines under labelled --- / +++ headers and a hunk header', () => {
    const a = 'You are careful.\nUse the tools.\nAnswer briefly.\n';
    const b = 'You are careful.\nUse the tools twice.\nAnswer briefly.\n';
    expect(unifiedTextDiff(a, b, { labelA: 'A system prompt', labelB: 'B system prompt' })).toBe(
      '--- A system prompt\n+++ B system prompt\n@@ -1,3 +1,3 @@\n You are careful.\n-Use the ' +
        'tools.\n+Use the tools twice.\n Answer briefly.\n',
    );
    expect(unifiedTextDiff(a, a)).toBe('');
    expect(unifiedTextDiff('x', 'x\n')).toBe('--- A\n+++ B\n(the texts differ only in a final newline)\n');
  });

  it('jsonDiffText: sorted keys, one field per line', () => {
    expect(jsonDiffText({ name: 'echo', description: 'Echoes.' })).toBe(
      '{\n  "description": "Echoes.",\n  "name": "echo"\n}',
    );
  });

  it('for any two texts: empty exactly when equal, and the diff applied to A gives B (as lines)', () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        const d = unifiedTextDiff(a, b);
        expect(d === '').toBe(a === b);
        if (d === '' || d.includes('differ only in a final newline')) return;
        const nl = (t: string) => (t === '' || t.endsWith('\n') ? t : `${t}\n`);
        expect(applyPatch(nl(a), d)).toBe(nl(b));
        for (const line of d.split('\n').slice(2, -1))
          expect(line).toMatch(/^(@@ -\d+(,\d+)? \+\d+(,\d+)? @@|[ +-].*)$/);
      }),
    );
  });
});
