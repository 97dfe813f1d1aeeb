import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EditError, editText } from '../../../src/kit/tools/edit-text.js';

// Files are made of lines that each carry a unique marker (`L7:`), so a block of them occurs exactly once and the
// expected text can be written down independently of the code under test.
const word = fc.stringMatching(/^[a-z]{1,6}$/);
const text = fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(' '));
const eol = fc.constantFrom('\n', '\r\n');

/** A file of marked lines with an end (LF or CRLF) per line; the last line may have none. */
const fileArb = fc
  .array(fc.tuple(text, eol), { minLength: 2, maxLength: 12 })
  .chain((rows) =>
    fc.tuple(
      fc.constant(rows.map(([t], i) => `L${i}: ${t}`)),
      fc.constant(rows.map(([, e]) => e)),
      fc.boolean(),
      fc.boolean(),
    ),
  )
  .map(([lines, ends, lastHasEnd, bom]) => ({ lines, ends: lastHasEnd ? ends : [...ends.slice(0, -1), ''], bom }));

const render = (lines: string[], ends: string[], bom: boolean) =>
  (bom ? '\uFEFF' : '') + lines.map((l, i) => l + ends[i]).join('');
/** The line end the edit should write between new lines: CRLF if the replaced lines had one between them, else the file's majority. */
function expectedStyle(ends: string[], i: number, j: number): string {
  const inside = ends.slice(i, j);
  if (inside.length) return inside.includes('\r\n') ? '\r\n' : '\n';
  const crlf = ends.filter((e) => e === '\r\n').length;
  const lf = ends.filter((e) => e === '\n').length;
  return crlf > lf ? '\r\n' : '\n';
}

describe('editText properties (seed printed on failure)', () => {
  it("replaces a block whatever the line ends of file and arguments, keeps the BOM, and writes the new lines in the file's style", () => {
    fc.assert(
      fc.property(
        fileArb,
        fc.nat(),
        fc.nat(),
        eol,
        eol,
        fc.array(text, { minLength: 1, maxLength: 4 }),
        (f, a, b, argEol, newEol, fresh) => {
          const i = a % f.lines.length;
          const j = i + (b % (f.lines.length - i));
          const oldString = f.lines.slice(i, j + 1).join(argEol);
          const newLines = fresh.map((t, k) => `N${k}: ${t}`);
          const r = editText(render(f.lines, f.ends, f.bom), oldString, newLines.join(newEol));
          const style = expectedStyle(f.ends, i, j);
          const expected =
            (f.bom ? '\uFEFF' : '') +
            f.lines
              .slice(0, i)
              .map((l, k) => l + f.ends[k])
              .join('') +
            newLines.join(style) +
            f.ends[j] +
            f.lines
              .slice(j + 1)
              .map((l, k) => l + f.ends[j + 1 + k])
              .join('');
          expect(r.text).toBe(expected);
          expect(r.replacer).toBe('exact');
          expect(r.lines).toEqual([i + 1]);
        },
      ),
    );
  });

  it('an edit and its inverse give back the file, byte for byte', () => {
    fc.assert(
      fc.property(fileArb, fc.nat(), fc.array(text, { minLength: 1, maxLength: 3 }), (f, a, fresh) => {
        const original = render(f.lines, f.ends, f.bom);
        const i = a % f.lines.length;
        const replacement = fresh.map((t, k) => `N${k}: ${t}`).join('\n');
        const there = editText(original, f.lines[i], replacement).text;
        expect(editText(there, replacement, f.lines[i]).text).toBe(original);
      }),
    );
  });

  // A block of code-like lines at a base indentation, with relative indentation inside it.
  const blockArb = fc
    .array(fc.tuple(fc.integer({ min: 0, max: 2 }), text), { minLength: 2, maxLength: 5 })
    .map((rows) => rows.map(([lvl, t], k) => ({ rel: '  '.repeat(lvl), t: `B${k}: ${t}` })));

  // opencode's chain matches a block sent at another indentation line by line (line-trimmed comes first) and
  // writes newString as sent. (Before #29 item 18 this moved newString to the file's indentation: opencode does not.)
  it('a block sent at another indentation is matched, and newString is written as sent, as opencode does', () => {
    fc.assert(
      fc.property(
        blockArb,
        blockArb,
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 0, max: 8 }),
        (block, fresh, base, sent) => {
          fc.pre(base !== sent);
          const at = (indent: number, rows: { rel: string; t: string }[]) =>
            rows.map((r) => ' '.repeat(indent) + r.rel + r.t.replace(/^B/, rows === fresh ? 'N' : 'B'));
          const file = ['head();', ...at(base, block), 'tail();', ''].join('\n');
          const r = editText(file, at(sent, block).join('\n'), at(sent, fresh).join('\n'));
          expect(r.replacer).toBe('line-trimmed');
          expect(r.text).toBe(['head();', ...at(sent, fresh), 'tail();', ''].join('\n'));
        },
      ),
    );
  });

  it('lines sent with other leading and trailing whitespace are matched line by line (line-trimmed)', () => {
    fc.assert(
      fc.property(
        blockArb,
        fc.array(fc.constantFrom('', ' ', '\t', '   '), { minLength: 5, maxLength: 5 }),
        fc.array(fc.constantFrom('', ' ', '  '), { minLength: 5, maxLength: 5 }),
        (block, leads, trails) => {
          const lines = block.map((r) => r.rel + r.t);
          const sent = lines.map((l, k) => leads[k] + l.trim() + trails[k]);
          fc.pre(sent.join('\n') !== lines.join('\n'));
          const file = `start\n${lines.join('\n')}\nend\n`;
          const r = editText(file, sent.join('\n'), 'X');
          expect(['exact', 'indentation-flexible', 'trimmed-boundary', 'line-trimmed']).toContain(r.replacer);
          if (r.replacer === 'line-trimmed' || r.replacer === 'indentation-flexible')
            expect(r.text).toMatch(/^start\n[ ]*X\nend\n$/);
        },
      ),
    );
  });

  it('a block that occurs twice is refused with both line numbers, unless replaceAll', () => {
    fc.assert(
      fc.property(blockArb, fc.integer({ min: 0, max: 3 }), (block, gap) => {
        const lines = block.map((r) => r.rel + r.t);
        const file = [...lines, ...Array.from({ length: gap }, (_, k) => `gap ${k}`), ...lines, ''].join('\n');
        const second = lines.length + gap + 1;
        expect(() => editText(file, lines.join('\n'), 'X')).toThrow(EditError);
        expect(() => editText(file, lines.join('\n'), 'X')).toThrow(`(at lines 1, ${second})`);
        expect(editText(file, lines.join('\n'), 'X', { replaceAll: true }).text).toBe(
          ['X', ...Array.from({ length: gap }, (_, k) => `gap ${k}`), 'X', ''].join('\n'),
        );
      }),
    );
  });
});
