import { describe, expect, it } from 'vitest';
import { editTool } from '../../../src/kit/tools/index.js';
import { callTool, envCases } from '../../helpers/qitos-env-fixtures.js';

const BOM = [0xef, 0xbb, 0xbf];
const bytes = (s: string, bom = false) => new Uint8Array([...(bom ? BOM : []), ...new TextEncoder().encode(s)]);

describe.each(envCases)('edit on $name', (kind) => {
  const edit = async (file: string | Uint8Array, args: Record<string, unknown>) => {
    const ws = kind.make({ 'f.txt': file });
    try {
      const r = await callTool(editTool(), { path: 'f.txt', ...args }, ws.env);
      return { r, after: await ws.files.readBytes('f.txt'), text: await ws.files.readText('f.txt') };
    } finally {
      ws.cleanup();
    }
  };

  it('keeps a UTF-8 byte-order mark', async () => {
    const { r, after } = await edit(bytes('alpha\nbeta\n', true), { oldString: 'alpha', newString: 'ALPHA' });
    expect(r.status, r.seen).toBe('success');
    expect([...after.slice(0, 3)]).toEqual(BOM);
    expect(new TextDecoder('utf-8', { ignoreBOM: true }).decode(after)).toBe('\uFEFFALPHA\nbeta\n');
  });

  // [what, replacer expected to match, file, oldString, newString, file afterwards]
  it.each([
    [
      'line ends: CRLF file, LF argument',
      'exact',
      'one\r\ntwo\r\nthree\r\n',
      'one\ntwo',
      'uno\ndos',
      'uno\r\ndos\r\nthree\r\n',
    ],
    [
      'line ends: LF file, CRLF argument',
      'exact',
      'one\ntwo\nthree\n',
      'one\r\ntwo',
      'uno\r\ndos',
      'uno\ndos\nthree\n',
    ],
    [
      'line ends: mixed file, LF argument',
      'exact',
      'one\r\ntwo\nthree\r\nfour\n',
      'two\nthree\nfour',
      '2\n3\n4',
      'one\r\n2\r\n3\r\n4\n',
    ],
    [
      'line ends: mixed file, edit inside an LF part',
      'exact',
      'a\r\nb\nc\nd\r\n',
      'b\nc',
      'B\nX\nC',
      'a\r\nB\nX\nC\nd\r\n',
    ],
    [
      'line ends: CRLF file, one line grows to two',
      'exact',
      'x = 1;\r\ny = 2;\r\n',
      'x = 1;',
      'x = 1;\nz = 3;',
      'x = 1;\r\nz = 3;\r\ny = 2;\r\n',
    ],
    // As opencode's chain: a block at another indentation is matched line by line and newString written as
    // sent (this row re-indented it before #29 item 18).
    [
      'tolerant',
      'line-trimmed',
      'class A {\n    run() {\n        go();\n    }\n}\n',
      'run() {\n    go();\n}',
      '    run() {\n        go();\n        stop();\n    }',
      'class A {\n    run() {\n        go();\n        stop();\n    }\n}\n',
    ],
    ['tolerant', 'trimmed-boundary', 'xa\nby\n', ' a\nb ', 'Q', 'xQy\n'],
    [
      'tolerant',
      'escape-normalized',
      'say("hello");\nsay(\'x\');\n',
      'say(\\"hello\\");',
      'say("bye");\nsay("again");',
      'say("bye");\nsay("again");\nsay(\'x\');\n',
    ],
    [
      'tolerant',
      'line-trimmed',
      '  a = 1;   \n\tb = 2;\nc\n',
      'a = 1;\n  b = 2;',
      'a = 10;\nb = 20;',
      'a = 10;\nb = 20;\nc\n',
    ],
    [
      'tolerant',
      'whitespace-normalized',
      'if (a  &&   b) {\n  go();\n}\n',
      'if (a && b) {',
      'if (a || b) {',
      'if (a || b) {\n  go();\n}\n',
    ],
    [
      'tolerant',
      'block-anchor',
      'function total(items) {\n  let sum = 0;\n  for (const item of items) sum += item.price;\n  return sum;\n}\n',
      'function total(items) {\n  let sum = 0;\n  for (const it of items) sum += it.price;\n  return sum;\n}',
      'function total(items) {\n  return items.reduce((s, i) => s + i.price, 0);\n}',
      'function total(items) {\n  return items.reduce((s, i) => s + i.price, 0);\n}\n',
    ],
    [
      'tolerant',
      'context-aware',
      'begin\n  keep one\n  old detail A\n  keep two\n  old detail B\nend\n',
      'begin\n  keep one\n  something quite different here\n  keep two\n  and another unrelated line\nend',
      'begin\nreplaced\nend',
      'begin\nreplaced\nend\n',
    ],
  ])(
    '%s (%s): the file is edited as expected and the replacer is named',
    async (_what, replacer, file, oldString, newString, expected) => {
      const { r, text } = await edit(file, { oldString, newString });
      expect(r.status, r.seen).toBe('success');
      expect(text).toBe(expected);
      expect(r.state.status === 'completed' && r.state.metadata).toMatchObject({ replacer, replacements: 1 });
      if (replacer !== 'exact') expect(r.seen).toContain(`(${replacer}): check the result.`);
    },
  );

  it('multi-occurrence: replaceAll replaces every exact occurrence', async () => {
    const { r, text } = await edit('a = 1;\nb = 1;\nc = 2;\n', {
      oldString: '= 1;',
      newString: '= 9;',
      replaceAll: true,
    });
    expect(r.status).toBe('success');
    expect(text).toBe('a = 9;\nb = 9;\nc = 2;\n');
    expect(r.state.status === 'completed' && r.state.metadata).toMatchObject({
      replacer: 'exact',
      replacements: 2,
      lines: [1, 2],
    });
  });

  it.each([
    ['exact', 'x\ny\nx\n', 'x', /^oldString occurs 2 times in "f\.txt" \(at lines 1, 3\)\./],
    [
      'line-trimmed',
      'p = 1; \nq\n  r\np = 1;\t\nq \n r\n',
      ' p = 1;\nq\nr',
      /^oldString matches 2 places .*\(line-trimmed\) \(at lines 1, 4\)\./,
    ],
    [
      'whitespace-normalized',
      'a  b\nc\na\tb\n',
      'a b',
      /^oldString matches 2 places .*\(whitespace-normalized\) \(at lines 1, 3\)\./,
    ],
  ])(
    'refuses ambiguity (%s) with the lines of every match, and changes nothing',
    async (_name, file, oldString, message) => {
      const { r, text } = await edit(file, { oldString, newString: 'Z' });
      expect(r.status).toBe('error');
      expect(r.seen).toMatch(message);
      expect(r.seen).toMatch(/Include more surrounding lines to pick one occurrence, or set replaceAll to true/);
      expect(text).toBe(file);
    },
  );

  it('concurrent edits of one file are applied one after the other (no lost update)', async () => {
    const n = 20;
    const ws = kind.make({ 'f.txt': Array.from({ length: n }, (_, i) => `token${i}`).join('\n') + '\n' });
    try {
      const tool = editTool();
      const results = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          callTool(tool, { path: 'f.txt', oldString: `token${i}\n`, newString: `done${i}\n` }, ws.env),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(Array(n).fill('success'));
      expect(await ws.files.readText('f.txt')).toBe(Array.from({ length: n }, (_, i) => `done${i}`).join('\n') + '\n');
    } finally {
      ws.cleanup();
    }
  });
});
