import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EditError, editText } from '../../../src/kit/tools/edit-text.js';
import { withLineEnds } from '../../../src/kit/tools/line-endings.js';
import { editGoldenInputs, type EditGoldenInput } from './edit-golden-inputs.js';

// Differential test against opencode's replace() chain (commit 00937b92a3d7d378d71a0179c0836235ee882952): the
// fixture holds what opencode returned for each input (see test/fixtures/edit-opencode/README.md); none of its
// code is in this repository.
type Outcome = { ok: true; content: string } | { ok: false; refusal: 'not-found' | 'multiple' | 'no-change' };
interface Row extends EditGoldenInput {
  opencode: Outcome;
}
const golden = JSON.parse(
  readFileSync(new URL('../../fixtures/edit-opencode/golden.json', import.meta.url), 'utf8'),
) as { opencodeCommit: string; rows: Row[] };

/**
 * Rows where we refuse on purpose what opencode does, and why. Everywhere else the result is opencode's.
 * - `multiple`: one replacer proposed two candidates that each occur once, at different places; opencode edits
 *   the first (in file order) without a word, which is a guess. We list both places and let the model choose.
 * - `not-found`: a block-anchor match opencode takes although the lines between the anchors are unlike (it
 *   takes a lone candidate at any similarity) or the block is much longer than oldString; we need 75% alike
 *   and the length within a quarter, so a remembered-wrong block cannot replace a large unrelated span.
 */
const STRICTER: Record<string, 'multiple' | 'not-found'> = {
  'line-trimmed two places': 'multiple',
  'whitespace twice': 'multiple',
  'generated 40 (piece)': 'multiple',
  'generated 115 (pad)': 'multiple',
  'generated 117 (squeeze)': 'multiple',
  'generated 199 (indent)': 'multiple',
  'block-anchor unlike middle': 'not-found',
  'block-anchor far closing line': 'not-found',
  'generated 132 (middle)': 'not-found',
};

function ours(row: EditGoldenInput): Outcome & { text?: string } {
  try {
    const r = editText(row.content, row.oldString, row.newString, { replaceAll: row.replaceAll });
    // opencode's side was run with CRLF read as LF (the README says why): compare on the same footing.
    return { ok: true, content: withLineEnds(r.text, '\n'), text: r.text };
  } catch (err) {
    if (!(err instanceof EditError)) throw err;
    const m = err.message;
    return {
      ok: false,
      refusal: m.includes('was not found') ? 'not-found' : m.includes('the same') ? 'no-change' : 'multiple',
    };
  }
}

describe('edit against opencode replace() (golden table)', () => {
  it('the fixture holds exactly the inputs the generator makes, from the named opencode commit', () => {
    expect(golden.opencodeCommit).toBe('00937b92a3d7d378d71a0179c0836235ee882952');
    expect(golden.rows.map(({ opencode: _, ...input }) => input)).toEqual(editGoldenInputs());
  });

  it.each(golden.rows.filter((r) => !(r.name in STRICTER)).map((r) => [r.name, r] as const))(
    '%s: the same result as opencode',
    (_name, row) => {
      const got = ours(row);
      if (row.opencode.ok) expect({ ok: got.ok, content: got.ok ? got.content : got.refusal }).toEqual(row.opencode);
      else expect(got.ok ? got : got.refusal).toBe(row.opencode.refusal);
    },
  );

  it.each(Object.entries(STRICTER))('%s: refused (%s) where opencode edits, on purpose', (name, refusal) => {
    const row = golden.rows.find((r) => r.name === name);
    expect(row?.opencode.ok).toBe(true);
    expect(ours(row!)).toEqual({ ok: false, refusal });
  });

  it('a CRLF file keeps its line ends where opencode on the same text read as LF would edit', () => {
    for (const row of golden.rows.filter((r) => r.content.includes('\r\n'))) {
      const got = ours(row);
      expect(row.opencode.ok && got.ok).toBe(true);
      if (got.ok) expect(got.text).toBe(withLineEnds(got.content, '\r\n'));
    }
  });

  it('whenever opencode edits, we write the same text or refuse (never a different edit)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...golden.rows), (row) => {
        const got = ours(row);
        if (got.ok) expect(row.opencode).toEqual({ ok: true, content: got.content });
      }),
    );
  });
});

// Inputs whose opencode result follows from construction: every line of the file is unique and no line is part of
// another, so a block sent with other indentation or trailing whitespace has exactly one line-trimmed candidate,
// which opencode replaces with newString as sent.
describe('edit on constructed inputs (opencode result known by construction)', () => {
  const line = fc.stringMatching(/^[a-z]{1,5}( [a-z]{1,5}){0,2}$/);
  it('a block with its whitespace disturbed line by line is replaced by newString as sent', () => {
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 3, maxLength: 10 }),
        fc.nat(),
        fc.nat(),
        fc.array(fc.tuple(fc.constantFrom('', ' ', '  ', '\t'), fc.constantFrom('', ' ', '\t')), {
          minLength: 10,
          maxLength: 10,
        }),
        fc.array(line, { minLength: 1, maxLength: 3 }),
        (words, a, b, ws, fresh) => {
          const lines = words.map((w, k) => `L${k}# ${w};`);
          const from = a % lines.length;
          const to = from + (b % (lines.length - from));
          const sent = lines.slice(from, to + 1).map((l, k) => ws[k][0] + l + ws[k][1]);
          const newString = fresh.join('\n');
          const r = editText(lines.join('\n') + '\n', sent.join('\n'), newString);
          expect(r.text).toBe([...lines.slice(0, from), newString, ...lines.slice(to + 1)].join('\n') + '\n');
          expect(r.replacer).toBe(sent.every((l, k) => l === lines[from + k]) ? 'exact' : 'line-trimmed');
        },
      ),
    );
  });
});
