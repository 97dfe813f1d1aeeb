import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ShellCommandReader } from '../../../src/envs/shell/shell-command-reader.js';

let reader: ShellCommandReader;
beforeAll(async () => {
  reader = await ShellCommandReader.load();
});

const texts = (line: string) => reader.read(line).map((c) => c.text);

describe('ShellCommandReader', () => {
  it.each([
    ['git status', ['git status']],
    ['  git \t status  ', ['git status']],
    ['a && b || c; d | e & f', ['a', 'b', 'c', 'd', 'e', 'f']],
    ['X=1 Y="a b" \\rm -f "some file"', ['rm -f some file']],
    ['/usr/local/bin/tool --flag', ['tool --flag']],
    ['wc -l < notes.txt 2>/dev/null', ['wc -l < notes.txt 2> /dev/null']],
    ['cat <<EOF > out\nhello $(date)\nEOF', ['cat <<EOF > out', 'date']],
    ['echo "$(git log | head -1)"', ['echo $(git log | head -1)', 'git log', 'head -1']],
    [
      'timeout -k 1 5 nice -n 2 env A=1 ls -la',
      ['timeout -k 1 5 nice -n 2 env A=1 ls -la', 'nice -n 2 env A=1 ls -la', 'env A=1 ls -la', 'ls -la'],
    ],
    ['sudo -u www -- systemctl restart x', ['sudo -u www -- systemctl restart x', 'systemctl restart x']],
    ["bash -lc 'cd src && make'", ['bash -lc cd src && make', 'cd src', 'make']],
    ['eval "echo a; echo b"', ['eval echo a; echo b', 'echo a', 'echo b']],
    ['time -p make -j4', ['make -j4']],
    ['coproc worker { sleep 1; }', ['sleep 1']],
    ['ma\\\nke all', ['make all']],
    ["echo 'a\\\nb'", ['echo a\\\nb']],
    ['# only a comment', []],
  ])('%j runs %j', (line, expected) => {
    expect(texts(line)).toEqual(expected);
  });

  it('marks what is known only when it runs, with a shape and the reason', () => {
    expect(reader.read('rm -f $f')).toEqual([
      { text: 'rm -f $f', shape: ['rm', ' ', '-f', null], unknown: '$f is known only when it runs' },
    ]);
    expect(reader.read('source env.sh')[1]).toEqual({
      text: 'source env.sh',
      shape: [null],
      unknown: 'source runs the commands in env.sh: what runs is known only when it runs',
    });
    expect(reader.read('echo "$x" | bash')).toContainEqual({
      text: 'bash',
      shape: [null],
      unknown: 'bash reads commands from a pipe: what runs is known only when it runs',
    });
  });

  it('refuses a line past its bounds, or takes a line it cannot read for unknown; no stack overflow, no hang', () => {
    const refused = (line: string) => reader.read(line).find((c) => c.refused)?.refused;
    expect(refused(`${'( '.repeat(400)}true${' )'.repeat(400)}`)).toMatch(
      /nested more than 256 levels deep|rounds of work/,
    );
    expect(refused('true;'.repeat(2_500))).toBe('it runs more than 2000 commands');
    expect(refused(`echo ${'a'.repeat(100_000)}`)).toBe(
      'it is longer than 100000 characters (with the shell code inside it)',
    );
    for (const line of ['$(('.repeat(30_000), '"$('.repeat(20_000), "'".repeat(50_001), '{ '.repeat(30_000)])
      expect(
        reader.read(line).some((c) => c.refused || c.unknown?.startsWith('bash cannot read this command line')),
        line.slice(0, 10),
      ).toBe(true);
  });

  it('takes quotes and escapes off a word exactly as bash does (property, against bash)', () => {
    // Each word is written in one of bash's quoting styles; bash prints the words it received, the reader must agree.
    const quote = (w: string, style: number): string => {
      if (style === 0) return `'${w.replace(/'/g, `'\\''`)}'`;
      if (style === 1) return `"${w.replace(/(["\\$`])/g, '\\$1')}"`;
      if (style === 2) return [...w].map((c) => (/[A-Za-z0-9]/.test(c) ? c : `\\${c}`)).join('');
      return `$'${[...w].map((c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('')}'`;
    };
    const word = fc.string({
      unit: fc.constantFrom('a', 'Z', '0', ' ', "'", '"', '\\', '$', '`', '*', '{', ',', '}', ';', '#', '\t'),
      minLength: 1,
      maxLength: 6,
    });
    const words = fc.array(fc.tuple(word, fc.integer({ min: 0, max: 3 })), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(words, (ws) => {
        const line = `printf '%s\\0' ${ws.map(([w, s]) => quote(w, s)).join(' ')}`;
        const got = spawnSync('bash', ['-c', line], { encoding: 'utf8' }).stdout.split('\0').slice(0, -1);
        expect(got).toEqual(ws.map(([w]) => w));
        // (A quoted backtick or `$(` is also read as code, in case the shell evaluates the text again: more commands.)
        expect(texts(line)[0]).toBe(`printf %s\\0 ${got.join(' ')}`);
      }),
      { numRuns: 150 },
    );
  });
});
