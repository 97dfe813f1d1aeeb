/**
 * The inputs of the differential test against opencode's `replace()` chain (test/fixtures/edit-opencode): the
 * known cases by hand, then rows from a seeded generator, so the fixture can be rebuilt row for row.
 */
export interface EditGoldenInput {
  name: string;
  content: string;
  oldString: string;
  newString: string;
  replaceAll: boolean;
}

const hand: EditGoldenInput[] = [
  // trimmed boundary: the bare text occurs twice, the whole line once (the unique best)
  row('trimmed-boundary unique block', 'foo();\n  foo\nbar\n', '  foo\n', 'baz\n'),
  row('trimmed-boundary plain', 'x = foo bar;\n', '  foo bar  ', 'baz'),
  row('trimmed-boundary across lines', 'xa\nby\n', ' a\nb ', 'Q'),
  row('trimmed-boundary both twice', 'foo\nfoo\n', '\nfoo\n', 'bar'),
  // line-trimmed: one block's text also occurs inside another line, the other block is unique
  row('line-trimmed unique best', 'a = 1\n  a = 1 \nb\n', ' a = 1\nb', 'X'),
  row('line-trimmed two places', 'p = 1; \nq\n  r\np = 1;\t\nq \n r\n', ' p = 1;\nq\nr', 'Z'),
  row('line-trimmed indentation', '  a = 1;   \n\tb = 2;\nc\n', 'a = 1;\n  b = 2;', 'a = 10;\nb = 20;'),
  row('trailing whitespace', 'let x = 1;   \nlet y = 2;\n', 'let x = 1;\nlet y = 2;', 'let x = 3;\nlet y = 4;'),
  row('trailing whitespace in oldString', 'one\ntwo\n', 'one  \ntwo\t', 'uno\ndos'),
  // indentation-flexible: opencode writes newString as sent, not re-indented
  row(
    'indentation moved right',
    'class A {\n    run() {\n        go();\n    }\n}\n',
    'run() {\n    go();\n}',
    'run() {\n    go();\n    stop();\n}',
  ),
  row(
    'indentation moved left',
    'if (a) {\n  go();\n}\n',
    '        if (a) {\n          go();\n        }',
    'if (b) {\n}',
  ),
  row('indentation twice', 'if (a) {\n  go();\n}\nif (b) {\n    go();\n}\n', '      go();\n', 'Z'),
  // escapes
  row('escape-normalized', 'say("hello");\nsay(\'x\');\n', 'say(\\"hello\\");', 'say(\\"bye\\");\\nsay(\\"again\\");'),
  row('escape newline', 'a\nb\n', 'a\\nb', 'c'),
  row('escape tab block', 'x\tvalue\n', 'x\\tvalue', 'y'),
  // whitespace-normalized
  row('whitespace inside a line', 'if (a  &&   b) {\n  go();\n}\n', 'if (a && b) {', 'if (a || b) {'),
  row('whitespace across lines', 'if (a &&\n    b) {\n  go();\n}\n', 'if (a && b) {', 'if (a || b) {'),
  row('whitespace twice', 'a  b\nc\na\tb\n', 'a b', 'Z'),
  // block anchors
  row(
    'block-anchor alike',
    'function total(items) {\n  let sum = 0;\n  for (const item of items) sum += item.price;\n  return sum;\n}\n',
    'function total(items) {\n  let sum = 0;\n  for (const it of items) sum += it.price;\n  return sum;\n}',
    'function total(items) {\n  return items.reduce((s, i) => s + i.price, 0);\n}',
  ),
  row('block-anchor two candidates', 'start\n  one\nstop\nstart\n  one!\nstop\n', 'start\n  one?\nstop', 'Z'),
  row(
    'block-anchor unlike middle',
    'begin\n  alpha beta gamma\nend\n',
    'begin\n  something else entirely\nend',
    'begin\nend',
  ),
  row(
    'block-anchor far closing line',
    'open\n  a\n  b\n  c\n  d\n  e\n  f\nclose\n',
    'open\n  a\nclose',
    'open\nclose',
  ),
  row(
    'context-aware',
    'begin\n  keep one\n  old detail A\n  keep two\n  old detail B\nend\n',
    'begin\n  keep one\n  something quite different here\n  keep two\n  and another unrelated line\nend',
    'begin\nreplaced\nend',
  ),
  // replaceAll
  row('replaceAll exact', 'a = 1;\nb = 1;\nc = 2;\n', '= 1;', '= 9;', true),
  row('replaceAll disproportionate whitespace', 'a b\na\n\n\n   b\na  b\n', 'a b', 'X', true),
  row('replaceAll whitespace-normalized', 'f(a,  b)\nf(a, b )\nf(a,  b)\n', 'f(a, b)', 'g()', true),
  row('replaceAll line-trimmed', '  x();\n  x();\ny\n', 'x();\n', 'z();\n', true),
  // CRLF (compared on LF-normalised text, see the README)
  row('CRLF file, LF oldString', 'one\r\ntwo\r\nthree\r\n', 'one\ntwo', 'uno\ndos'),
  row('CRLF file, line-trimmed', '  one\r\n  two\r\nthree\r\n', 'one\ntwo', 'uno\ndos'),
  // refusals
  row('not found', 'alpha\nbeta\n', 'gamma', 'delta'),
  row('exact twice', 'x\ny\nx\n', 'x', 'Z'),
  row('exact twice, a line is unique when trimmed', 'x = 1\n  x = 1 \n', 'x = 1', 'X'),
];

function row(name: string, content: string, oldString: string, newString: string, replaceAll = false): EditGoldenInput {
  return { name, content, oldString, newString, replaceAll };
}

/** mulberry32: a small seeded generator, so the rows are the same on every machine. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['foo', 'bar', 'x', 'y = 1;', 'go();', 'return a;', '}', '{', 'if (a) {', 'a  b', '"q"', 'end'];
const INDENTS = ['', ' ', '  ', '    ', '\t'];
const TRAILS = ['', '', '', ' ', '\t'];

/**
 * Rows built from a file of a few short, often repeated lines: `oldString` is a run of its lines (sometimes a
 * piece of one line), then disturbed as a model disturbs it (indentation moved or dropped, trailing spaces,
 * whitespace runs squeezed, a middle line changed, quotes escaped, a newline added at the end or start).
 */
export function generatedInputs(seed: number, count: number): EditGoldenInput[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const out: EditGoldenInput[] = [];
  for (let n = 0; n < count; n++) {
    const lines = Array.from({ length: 3 + Math.floor(r() * 6) }, () => pick(INDENTS) + pick(WORDS) + pick(TRAILS));
    const content = lines.join('\n') + (r() < 0.7 ? '\n' : '');
    const from = Math.floor(r() * lines.length);
    const len = 1 + Math.floor(r() * Math.min(4, lines.length - from));
    let block = lines.slice(from, from + len);
    const how = pick(['exact', 'indent', 'trim', 'squeeze', 'middle', 'escape', 'piece', 'pad']);
    if (how === 'indent') {
      const by = pick(INDENTS);
      block = block.map((l) => (r() < 0.5 ? l.trimStart() : by + l));
    } else if (how === 'trim') block = block.map((l) => l.trim() + pick(TRAILS));
    else if (how === 'squeeze') block = block.map((l) => l.replace(/\s+/g, ' '));
    else if (how === 'middle' && block.length >= 3) block[1] = block[1] + ' // changed';
    else if (how === 'escape') block = [block.join('\n').replace(/"/g, '\\"').replace(/\n/g, '\\n')];
    else if (how === 'piece') block = [block[0].slice(Math.floor(r() * 3))];
    let oldString = block.join('\n');
    if (how === 'pad') oldString = pick(['\n', ' ', '  ']) + oldString + pick(['\n', ' ', '']);
    if (!oldString.trim()) oldString = 'foo';
    const newString = pick(['NEW', 'NEW\n', '  NEW();\n  MORE();', oldString.toUpperCase() + '!']);
    out.push({ name: `generated ${n} (${how})`, content, oldString, newString, replaceAll: r() < 0.15 });
  }
  return out;
}

/** Every input of the fixture, in order: the hand-written cases, then 200 generated from seed 20261126. */
export function editGoldenInputs(): EditGoldenInput[] {
  return [...hand, ...generatedInputs(20261126, 200)];
}
