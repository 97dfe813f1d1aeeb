import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadSkills, parseSkillFile } from '../../../src/kit/skills/index.js';
import { tempDir } from '../../helpers/kernel-fixtures.js';

const FIXTURES = resolve(__dirname, '../../fixtures/skills');
const skillMd = (fm: string, body = '# Body\n') => `---\n${fm}\n---\n${body}`;

describe('parseSkillFile', () => {
  it('reads name, description and body; keeps other frontmatter fields', () => {
    const s = parseSkillFile(skillMd('name: pdf-tools\ndescription: Work with PDFs.\nlicense: MIT', '\n# PDF\nUse it.\n'));
    expect(s).toEqual({ name: 'pdf-tools', description: 'Work with PDFs.', body: '# PDF\nUse it.\n', frontmatter: { name: 'pdf-tools', description: 'Work with PDFs.', license: 'MIT' } });
  });

  it('gives a one-line reason for files that are not usable skills', () => {
    expect(parseSkillFile('# just markdown')).toEqual({ error: expect.stringMatching(/^no YAML frontmatter/) });
    expect(parseSkillFile(skillMd('description: x'))).toEqual({ error: expect.stringMatching(/field "name"/) });
    expect(parseSkillFile(skillMd('name: Bad Name\ndescription: x'))).toEqual({ error: 'frontmatter field "name" must be 1-64 lowercase letters, digits or hyphens' });
    expect(parseSkillFile(skillMd('name: ok\ndescription: "  "'))).toEqual({ error: 'frontmatter field "description" must not be empty' });
    expect(parseSkillFile(skillMd('name: [unclosed'))).toEqual({ error: expect.stringMatching(/^frontmatter is not valid YAML/) });
  });

  it('round-trips any valid name and description; never throws on any text', () => {
    const name = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,20}$/);
    const description = fc.string({ minLength: 1, maxLength: 200 }).filter((d) => d.trim().length > 0 && d.length <= 1024);
    fc.assert(
      fc.property(name, description, fc.string(), (n, d, body) => {
        const parsed = parseSkillFile(`---\nname: ${JSON.stringify(n)}\ndescription: ${JSON.stringify(d)}\n---\n${body}`);
        expect(parsed).toMatchObject({ name: n, description: d.trim() });
      }),
    );
    fc.assert(fc.property(fc.string(), (text) => void parseSkillFile(text)));
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
      { path: join(b, 'nested', 'deeper', 'SKILL.md'), reason: `name "good" is already taken by ${join(a, 'good', 'SKILL.md')}` },
    ]);
  });

  it('a root that is not a folder is an error naming it', async () => {
    await expect(loadSkills(['/nonexistent/skills'])).rejects.toThrow('skills root /nonexistent/skills is not a folder');
  });
});
