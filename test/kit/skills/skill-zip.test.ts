import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  SkillZipError,
  entryNameProblem,
  extractSkillZip,
  type ExtractedSkill,
} from '../../../src/kit/skills/index.js';
import { isInside } from '../../../src/envs/index.js';
import { tempDir } from '../../helpers/kernel-fixtures.js';
import { fileTree } from '../../helpers/file-tree.js';
import { makeZip, skillMd, zipFolder, type ZipEntry } from '../../helpers/zip-writer.js';

const FIXTURES = resolve(__dirname, '../../fixtures/skills');
const SKILL = { name: 'SKILL.md', data: skillMd('demo', 'A demo skill.') };

/** Unpacks into a fresh folder inside a parent, so a test can also check nothing landed beside it. */
async function unpack(
  zip: Buffer | string,
  limits = {},
): Promise<{ parent: string; dest: string; ok?: ExtractedSkill; err?: Error }> {
  const parent = await tempDir();
  const dest = join(parent, 'dest');
  await mkdir(dest);
  const outcome = await extractSkillZip(zip, dest, limits).then(
    (r) => ({ ok: r }),
    (err: Error) => ({ err }),
  );
  return { parent, dest, ...outcome };
}

describe('extractSkillZip: real skills', () => {
  it.each(['brand-guidelines', 'internal-comms', 'theme-factory'])(
    'unpacks the %s fixture from a single top folder, byte for byte',
    async (name) => {
      const { dest, ok } = await unpack(zipFolder(join(FIXTURES, name), `${name}/`));
      expect(ok?.skillDir).toBe(join(dest, name));
      expect(fileTree(join(dest, name))).toEqual(fileTree(join(FIXTURES, name)));
    },
  );

  it('unpacks a ZIP with SKILL.md at its root, from a file path; skips macOS junk', async () => {
    const dir = await tempDir();
    const zip = join(dir, 'skill.zip');
    writeFileSync(
      zip,
      makeZip([
        SKILL,
        { name: 'notes/a.md', data: 'A' },
        { name: '__MACOSX/._SKILL.md', data: 'junk' },
        { name: '.DS_Store', data: 'junk' },
      ]),
    );
    const { dest, ok } = await unpack(zip);
    expect(ok).toEqual({ skillDir: dest, files: 2, bytes: Buffer.byteLength(SKILL.data) + 1 });
    expect(Object.keys(fileTree(dest)).sort()).toEqual(['SKILL.md', 'notes/a.md']);
  });
});

describe('extractSkillZip: ZIPs from other archivers', () => {
  it('unpacks a ZIP from Python zipfile.writestr (mode 0600, no file-type bits) as regular files', async () => {
    // Made by Python 3's zipfile (test/fixtures/skill-zips/README.md): every extractor reads "no type bits" as a file.
    const { dest, ok, err } = await unpack(readFileSync(join(FIXTURES, '../skill-zips/python-writestr.zip')));
    expect(err).toBeUndefined();
    expect(ok).toMatchObject({ skillDir: join(dest, 'py-skill'), files: 2 });
    expect(fileTree(join(dest, 'py-skill'))).toEqual({
      'SKILL.md': expect.stringContaining('name: py-skill'),
      'scripts/hello.py': 'print("hello")\n',
    });
  });

  it('a Unix entry with permission bits only is a file; with a type bit set that no file system has, it is refused', async () => {
    const plain = await unpack(makeZip([SKILL, { name: 'a.txt', data: 'A', mode: 0o600 }]));
    expect(plain.err).toBeUndefined();
    expect(readFileSync(join(plain.dest, 'a.txt'), 'utf8')).toBe('A');
    const odd = await unpack(makeZip([SKILL, { name: 'b', data: 'B', mode: 0o170644 }]));
    expect(odd.err?.message).toMatch(/entry "b" is of an unknown file type \(mode 170644\)/);
  });
});

describe('extractSkillZip: malicious and broken ZIPs are refused, nothing is written outside', () => {
  const cases: Array<[string, ZipEntry[], RegExp, object?]> = [
    [
      'zip-slip with ..',
      [SKILL, { name: '../evil.txt', data: 'x' }],
      /entry "\.\.\/evil\.txt" leaves the skill folder/,
    ],
    ['zip-slip deep inside', [SKILL, { name: 'a/b/../../../evil.txt', data: 'x' }], /leaves the skill folder/],
    ['zip-slip with backslashes', [SKILL, { name: '..\\..\\evil.txt', data: 'x' }], /leaves the skill folder/],
    [
      'absolute path',
      [SKILL, { name: '/tmp/qitos-evil.txt', data: 'x' }],
      /entry "\/tmp\/qitos-evil\.txt" has an absolute path/,
    ],
    ['drive-letter path', [SKILL, { name: 'C:/evil.txt', data: 'x' }], /has an absolute path/],
    [
      'symbolic link',
      [SKILL, { name: 'passwd', data: '/etc/passwd', mode: 0o120777 }],
      /entry "passwd" is a symbolic link/,
    ],
    [
      'symbolic link to a folder',
      [SKILL, { name: 'up', data: '..', mode: 0o120755 }, { name: 'up/x', data: 'x' }],
      /entry "up" is a symbolic link/,
    ],
    ['character device', [SKILL, { name: 'tty', mode: 0o020666 }], /entry "tty" is a character device/],
    ['block device', [SKILL, { name: 'sda', mode: 0o060660 }], /entry "sda" is a block device/],
    ['FIFO', [SKILL, { name: 'pipe', mode: 0o010644 }], /entry "pipe" is a FIFO/],
    ['socket', [SKILL, { name: 'sock', mode: 0o140755 }], /entry "sock" is a socket/],
    ['encrypted entry', [{ ...SKILL, encrypted: true }], /entry "SKILL\.md" is encrypted/],
    ['control character in a name', [SKILL, { name: 'a\u0007b', data: 'x' }], /control character/],
    [
      'duplicate entry',
      [SKILL, { name: 'a.md', data: '1' }, { name: 'a.md', data: '2' }],
      /entry "a\.md" appears twice/,
    ],
    [
      'file under a file',
      [SKILL, { name: 'a', data: '1' }, { name: 'a/b', data: '2' }],
      /entry "a\/b" is inside "a", which is a file/,
    ],
    ['no SKILL.md', [{ name: 'README.md', data: 'x' }], /it has no SKILL\.md/],
    ['two SKILL.md', [SKILL, { name: 'nested/SKILL.md', data: 'x' }], /it has 2 SKILL\.md files/],
    [
      'SKILL.md too deep',
      [{ name: 'a/b/SKILL.md', data: 'x' }],
      /must be at the root of the ZIP or in its single top folder/,
    ],
    [
      'files beside the top folder',
      [
        { name: 'demo/SKILL.md', data: SKILL.data },
        { name: 'stray.txt', data: 'x' },
      ],
      /entry "stray\.txt" is outside the top folder "demo\/"/,
    ],
    [
      'too many entries',
      [SKILL, ...Array.from({ length: 10 }, (_, i) => ({ name: `f${i}.txt`, data: 'x' }))],
      /it has 11 entries; at most 10 are allowed/,
      { maxEntries: 10 },
    ],
    [
      'too many bytes (declared)',
      [SKILL, { name: 'big.bin', data: Buffer.alloc(4096, 7), method: 'store' as const }],
      /unpacks to more than 4000 bytes \(at entry "big\.bin"\)/,
      { maxBytes: 4000 },
    ],
    [
      'ratio bomb',
      [SKILL, { name: 'zeros.bin', data: Buffer.alloc(8 * 1024 * 1024) }],
      /entry "zeros\.bin" expands \d+ times .* at most 100 is allowed \(a zip bomb\?\)/,
    ],
    [
      'lying size header (more bytes than declared)',
      [SKILL, { name: 'liar.bin', data: Buffer.alloc(300_000, 1), declaredSize: 10 }],
      /entry "liar\.bin" is damaged: too many bytes in the stream/,
    ],
  ];

  it.each(cases)('%s', async (_what, entries, message, limits) => {
    const { parent, err } = await unpack(makeZip(entries), limits);
    expect(err).toBeInstanceOf(SkillZipError);
    expect(err?.message).toMatch(/^skill ZIP refused: /);
    expect(err?.message).toMatch(message);
    // Nothing escaped: the parent holds only the destination, and /tmp has no planted file.
    expect(readdirSync(parent)).toEqual(['dest']);
    expect(existsSync('/tmp/qitos-evil.txt')).toBe(false);
  });

  it('refuses a ZIP whose files together pass maxBytes, before writing any of them', async () => {
    const { err, dest } = await unpack(
      makeZip([
        SKILL,
        { name: 'a.bin', data: Buffer.alloc(600_000, 3) },
        { name: 'b.bin', data: Buffer.alloc(600_000, 4) },
      ]),
      { maxRatio: 1e9, maxBytes: 1_000_000 },
    );
    expect(err?.message).toMatch(/unpacks to more than 1000000 bytes \(at entry "b\.bin"\)/);
    expect(readdirSync(dest)).toEqual([]);
  });

  it('refuses what is not a ZIP', async () => {
    const { err } = await unpack(Buffer.from('PK but not really a zip file'));
    expect(err?.message).toMatch(/^skill ZIP refused: not a readable ZIP file/);
  });
});

describe('entryNameProblem', () => {
  it('every name it accepts resolves inside the destination (property)', () => {
    const part = fc.oneof(
      fc.constantFrom('..', '.', '', 'a', 'b.md', '..a', 'a..', '~', 'C:', '\\', '%2e%2e'),
      fc.string({ maxLength: 6 }),
    );
    const seed = Date.now() % 2 ** 31;
    console.log(`entryNameProblem property seed: ${seed}`);
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 6 }), fc.boolean(), (parts, abs) => {
        const name = (abs ? '/' : '') + parts.join('/');
        if (entryNameProblem(name) === undefined) expect(isInside('/dest', resolve('/dest', name))).toBe(true);
      }),
      { seed, numRuns: 2000 },
    );
  });

  it('names the problem', () => {
    expect(entryNameProblem('ok/file.md')).toBeUndefined();
    expect(entryNameProblem('..foo/bar..')).toBeUndefined();
    expect(entryNameProblem('a/../../b')).toBe('leaves the skill folder (..)');
    expect(entryNameProblem('/etc/passwd')).toBe('has an absolute path');
    expect(entryNameProblem('a//b')).toBe('has an empty or "." path component');
    expect(entryNameProblem('a\\b')).toBe('has a backslash in its name');
    expect(entryNameProblem('x'.repeat(600))).toBe('has a name longer than 512 characters');
  });
});
