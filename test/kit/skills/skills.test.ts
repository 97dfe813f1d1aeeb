import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  loadSkills,
  parseSkillFile,
  similarNames,
  unknownSkillMessage,
  withDescription,
  type SkillFile,
} from '../../../src/kit/skills/index.js';
import { tempDir } from '../../helpers/kernel-fixtures.js';

const FIXTURES = resolve(__dirname, '../../fixtures/skills');
const skillMd = (fm: string, body = '# Body\n') => `---\n${fm}\n---\n${body}`;

describe('parseSkillFile', () => {
  it('reads name, description and body; keeps other frontmatter fields', () => {
    const s = parseSkillFile(
      skillMd('name: pdf-tools\ndescription: Work with PDFs.\nlicense: MIT', '\n# PDF\nUse it.\n'),
    );
    expect(s).toEqual({
      name: 'pdf-tools',
      description: 'Work with PDFs.',
      body: '# PDF\nUse it.\n',
      frontmatter: { name: 'pdf-tools', description: 'Work with PDFs.', license: 'MIT' },
    });
  });

  it('gives a one-line reason for files that are not usable skills', () => {
    expect(parseSkillFile('# just markdown')).toEqual({ error: expect.stringMatching(/^no YAML frontmatter/) });
    expect(parseSkillFile(skillMd('description: x'))).toEqual({ error: expect.stringMatching(/field "name"/) });
    expect(parseSkillFile(skillMd('name: Bad Name\ndescription: x'))).toEqual({
      error:
        'frontmatter field "name" must be kebab-case: lowercase letters and digits, words joined by single hyphens',
    });
    expect(parseSkillFile(skillMd('name: trailing-\ndescription: x'))).toEqual({
      error: expect.stringMatching(/field "name" must be kebab-case/),
    });
    expect(parseSkillFile(skillMd(`name: ${'a'.repeat(65)}\ndescription: x`))).toEqual({
      error: 'frontmatter field "name" must be at most 64 characters',
    });
    expect(parseSkillFile(skillMd(`name: ok\ndescription: ${'d'.repeat(1025)}`))).toEqual({
      error: 'frontmatter field "description" is 1025 characters; at most 1024 are allowed',
    });
    expect(parseSkillFile(skillMd('name: ok\ndescription: x\nallowed-tools: 3'))).toEqual({
      error: expect.stringMatching(/^frontmatter field "allowed-tools" /),
    });
    expect(parseSkillFile(skillMd('name: ok\ndescription: "  "'))).toEqual({
      error: 'frontmatter field "description" must not be empty',
    });
    expect(parseSkillFile(skillMd('name: [unclosed'))).toEqual({
      error: expect.stringMatching(/^frontmatter is not valid YAML/),
    });
  });

  it('round-trips any valid name and description; never throws on any text', () => {
    const name = fc.stringMatching(/^[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,3}$/);
    const description = fc
      .string({ minLength: 1, maxLength: 200 })
      .filter((d) => d.trim().length > 0 && d.length <= 1024);
    const seed = Date.now() % 2 ** 31;
    console.log(`parseSkillFile property seed: ${seed}`);
    fc.assert(
      fc.property(name, description, fc.string(), (n, d, body) => {
        const parsed = parseSkillFile(
          `---\nname: ${JSON.stringify(n)}\ndescription: ${JSON.stringify(d)}\n---\n${body}`,
        );
        expect(parsed).toMatchObject({ name: n, description: d.trim() });
      }),
      { seed },
    );
    fc.assert(
      fc.property(fc.string(), (text) => void parseSkillFile(text)),
      { seed },
    );
  });
});

describe('withDescription', () => {
  const file =
    '\uFEFF---\r\n# the name is the folder name\r\nname: demo # keep me\r\ndescription: Old ' +
    'text.\r\nlicense: MIT\r\nmetadata:\r\n  owner: qitos\r\n---\r\n\r\n# Body\r\nKeep this ' +
    'exactly.\r\n';

  it('replaces only the description: comments, other fields, line endings, BOM and body stay', () => {
    const out = withDescription(file, 'New text: with a colon, and "quotes".');
    expect(out).toBe(file.replace('description: Old text.', 'description: \'New text: with a colon, and "quotes".\''));
    expect(parseSkillFile(out)).toMatchObject({
      name: 'demo',
      description: 'New text: with a colon, and "quotes".',
      frontmatter: { license: 'MIT', metadata: { owner: 'qitos' } },
    });
  });

  it('writes any valid description so that it parses back, and keeps the body (property)', () => {
    const seed = Date.now() % 2 ** 31;
    console.log(`withDescription property seed: ${seed}`);
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 300 }).filter((d) => d.trim().length > 0),
        fc.string(),
        (d, body) => {
          const text = `---\nname: demo\ndescription: x\n---\n${body}`;
          const before = parseSkillFile(text) as SkillFile;
          const after = parseSkillFile(withDescription(text, d)) as SkillFile;
          expect(after).toMatchObject({ name: 'demo', description: d.trim(), body: before.body });
        },
      ),
      { seed },
    );
  });

  it('refuses invalid descriptions and files that are not skills', () => {
    expect(() => withDescription(file, '')).toThrow('description must not be empty');
    expect(() => withDescription(file, 'x'.repeat(1025))).toThrow(
      'description is 1025 characters; at most 1024 are allowed',
    );
    expect(() => withDescription('# no frontmatter', 'x')).toThrow('not a valid SKILL.md: no YAML frontmatter');
  });
});

describe('catalog lookups', () => {
  it('finds names case-insensitively, suggests close names, and reports broken skills with file and reason', async () => {
    const root = await tempDir();
    await mkdir(join(root, 'pdf-tools'));
    await writeFile(join(root, 'pdf-tools', 'SKILL.md'), skillMd('name: pdf-tools\ndescription: PDFs.'));
    await mkdir(join(root, 'long-one'));
    await writeFile(join(root, 'long-one', 'SKILL.md'), skillMd(`name: long-one\ndescription: ${'d'.repeat(1100)}`));
    const cat = await loadSkills([root, FIXTURES]);
    expect(cat.get(' PDF-Tools ')?.name).toBe('pdf-tools');
    expect(cat.get('pdf-tools')?.hash).toBe(
      createHash('sha256')
        .update(readFileSync(join(root, 'pdf-tools', 'SKILL.md')))
        .digest('hex'),
    );
    expect(cat.skipped).toEqual([
      {
        path: join(root, 'long-one', 'SKILL.md'),
        reason: 'frontmatter field "description" is 1100 characters; at most 1024 are allowed',
      },
    ]);
    expect(unknownSkillMessage(cat, 'them-factory')).toBe('Unknown skill "them-factory". Did you mean: theme-factory?');
    expect(unknownSkillMessage(cat, 'Long-One')).toBe(
      `Unknown skill "Long-One". ${join(root, 'long-one', 'SKILL.md')} could not be loaded: ` +
        `frontmatter field "description" is 1100 characters; at most 1024 are allowed. Available ` +
        `skills: brand-guidelines, internal-comms, pdf-tools, theme-factory.`,
    );
    expect(similarNames(['pdf-tools', 'pdf-forms', 'brand-guidelines'], 'pdf')).toEqual(['pdf-forms', 'pdf-tools']);
    expect(similarNames(['pdf-tools'], 'zzzzzz')).toEqual([]);
  });
});

describe('loadSkills', () => {
  it('finds the skills of a root, sorted by name, with their folders', async () => {
    const cat = await loadSkills([FIXTURES]);
    expect(cat.skills.map((s) => s.name)).toEqual(['brand-guidelines', 'internal-comms', 'theme-factory']);
    expect(cat.skipped).toEqual([]);
    expect(cat.get('theme-factory')?.dir).toBe(join(FIXTURES, 'theme-factory'));
    expect(cat.get('theme-factory')?.description).toMatch(/^Toolkit for styling artifacts with a theme/);
  });

  it('skips broken and shadowed skills with a reason, does not follow links, accepts a skill folder as root', async () => {
    const a = await tempDir();
    const b = await tempDir();
    await mkdir(join(a, 'good'));
    await writeFile(join(a, 'good', 'SKILL.md'), skillMd('name: good\ndescription: First.'));
    await mkdir(join(a, 'broken'));
    await writeFile(join(a, 'broken', 'SKILL.md'), '# no frontmatter');
    await mkdir(join(b, 'nested', 'deeper'), { recursive: true });
    await writeFile(join(b, 'nested', 'deeper', 'SKILL.md'), skillMd('name: good\ndescription: Second.'));
    await symlink(FIXTURES, join(b, 'linked'));
    const cat = await loadSkills([a, b, join(FIXTURES, 'brand-guidelines')]);
    expect(cat.skills.map((s) => [s.name, s.description])).toEqual([
      ['brand-guidelines', expect.any(String)],
      ['good', 'First.'],
    ]);
    expect(cat.skipped).toEqual([
      { path: join(a, 'broken', 'SKILL.md'), reason: expect.stringMatching(/^no YAML frontmatter/) },
      {
        path: join(b, 'nested', 'deeper', 'SKILL.md'),
        reason: `name "good" is already taken by ${join(a, 'good', 'SKILL.md')}`,
      },
    ]);
  });

  it('a root that is not a folder is an error naming it', async () => {
    await expect(loadSkills(['/nonexistent/skills'])).rejects.toThrow(
      'skills root /nonexistent/skills is not a folder',
    );
  });
});
