import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, qitos, tempDir } from '../helpers/cli-harness.js';
import { yamlBomb } from '../helpers/yaml-bomb.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

describe('qitos skills list', () => {
  it('lists the skills of the roots, and says which SKILL.md files were skipped and why', async () => {
    await mkdir(join(dir, 'broken'));
    await writeFile(join(dir, 'broken', 'SKILL.md'), '---\nname: Broken Name\ndescription: x\n---\n');
    const r = await qitos(['skills', 'list', join(FIXTURES, 'skills'), dir], dir);
    expect(r.code).toBe(0);
    expect(
      r.out
        .split('\n')
        .slice(2, 5)
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual(['brand-guidelines', 'internal-comms', 'theme-factory']);
    expect(r.err).toBe(
      `skipped ${join(dir, 'broken', 'SKILL.md')}: frontmatter field "name" must be kebab-case: ` +
        `lowercase letters and digits, words joined by single hyphens\n`,
    );
    const json = JSON.parse((await qitos(['skills', 'list', join(FIXTURES, 'skills'), '--json'], dir)).out);
    expect(json.skills.map((s: { name: string }) => s.name)).toEqual([
      'brand-guidelines',
      'internal-comms',
      'theme-factory',
    ]);
    expect(json.skipped).toEqual([]);
  });

  it("a SKILL.md with a YAML alias bomb is skipped with its reason; the folder's good skills are listed", async () => {
    await mkdir(join(dir, 'bomb'));
    await writeFile(join(dir, 'bomb', 'SKILL.md'), `---\nname: bomb\ndescription: x\n${yamlBomb('l')}---\nbody\n`);
    await mkdir(join(dir, 'good'));
    await writeFile(join(dir, 'good', 'SKILL.md'), '---\nname: good\ndescription: A good skill.\n---\n');
    const r = await qitos(['skills', 'list', dir, '--json'], dir);
    expect(r.code, r.err).toBe(0);
    const json = JSON.parse(r.out);
    expect(json.skills.map((s: { name: string }) => s.name)).toEqual(['good']);
    // the frontmatter's line 4 is the file's line 5
    expect(json.skipped).toEqual([
      {
        path: join(dir, 'bomb', 'SKILL.md'),
        reason:
          'frontmatter is not valid YAML: line 5, column 9: YAML aliases expand to too much data ' +
          '(more than 100 alias expansions; the first alias is here)',
      },
    ]);
  });

  it('a missing root is a one-line error', async () => {
    const r = await qitos(['skills', 'list', 'nope'], dir);
    expect(r.code).not.toBe(0);
    expect(r.err).toBe(`qitos: skills root ${join(dir, 'nope')} is not a folder\n`);
  });
});

describe('config skills.roots', () => {
  it('gives the agent the skill tool; the model loads a skill and the trace keeps it', async () => {
    const { readFile } = await import('node:fs/promises');
    const { CALC_AGENT } = await import('../helpers/cli-harness.js');
    await writeFile(join(dir, 'q.yaml'), `skills:\n  roots: [${JSON.stringify(join(FIXTURES, 'skills'))}]\n`);
    await writeFile(
      join(dir, 'replies.json'),
      JSON.stringify([
        { text: '{"action": {"name": "skill", "args": {"name": "brand-guidelines"}}}' },
        { text: '{"final_answer": "styled"}' },
      ]),
    );
    const r = await qitos(
      ['run', CALC_AGENT, '-t', 'style it', '-m', `scripted:${join(dir, 'replies.json')}`, '-c', 'q.yaml', '--json'],
      dir,
    );
    expect(r.code, r.err).toBe(0);
    const { traceDir } = JSON.parse(r.out);
    const manifest = JSON.parse(await readFile(join(traceDir, 'manifest.json'), 'utf8'));
    expect(manifest.tools).toEqual(['calc', 'skill']);
    const step1 = JSON.parse((await readFile(join(traceDir, 'steps.jsonl'), 'utf8')).split('\n')[0]);
    expect(step1.results[0]).toMatchObject({
      name: 'skill',
      status: 'success',
      output: expect.stringContaining('# Anthropic Brand Styling'),
    });
    // replay rebuilds the same tool set from the recorded config
    expect((await qitos(['replay', traceDir, '--json'], dir)).code).toBe(0);
  });

  it('a skills folder that does not exist is a one-line error', async () => {
    const { CALC_AGENT, CALC_SCRIPT } = await import('../helpers/cli-harness.js');
    await writeFile(join(dir, 'q.yaml'), 'skills:\n  roots: [missing]\n');
    const r = await qitos(['run', CALC_AGENT, '-t', 'x', '-m', `scripted:${CALC_SCRIPT}`, '-c', 'q.yaml'], dir);
    expect(r.code).not.toBe(0);
    expect(r.err).toBe(`qitos: skills: skills root ${join(dir, 'missing')} is not a folder\n`);
  });
});

describe('qitos skills install | update | uninstall | list | search (a skills root)', () => {
  const zipOf = async (name: string) => {
    const { zipFolder } = await import('../helpers/zip-writer.js');
    const path = join(dir, `${name}.zip`);
    await writeFile(path, zipFolder(join(FIXTURES, 'skills', name), `${name}/`));
    return path;
  };

  it('installs ZIPs, lists and searches them, updates a description, uninstalls; --json everywhere', async () => {
    const root = join(dir, 'root');
    for (const name of ['brand-guidelines', 'internal-comms', 'theme-factory']) {
      const r = await qitos(['skills', 'install', await zipOf(name), '--root', root], dir);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toMatch(new RegExp(`^installed ${name} in ${join(root, name)} \\(\\d+ files, \\d+ bytes\\)\\n$`));
    }
    const again = await qitos(['skills', 'install', await zipOf('theme-factory'), '--root', root, '--json'], dir);
    expect(again.code).toBe(2);
    expect(again.err).toBe(
      `qitos: skill "theme-factory" is already installed in ${join(root, 'theme-factory')}; use update to replace it\n`,
    );
    expect(JSON.parse(again.out)).toEqual({ error: expect.stringContaining('already installed') });
    expect(
      (await qitos(['skills', 'install', await zipOf('theme-factory'), '--root', root, '--replace'], dir)).out,
    ).toMatch(/^replaced theme-factory/);

    const list = JSON.parse((await qitos(['skills', 'list', '--root', root, '--json'], dir)).out);
    expect(list.skills.map((s: { name: string }) => s.name)).toEqual([
      'brand-guidelines',
      'internal-comms',
      'theme-factory',
    ]);
    expect(list.skills[0]).toMatchObject({
      license: 'Complete terms in LICENSE.txt',
      path: join(root, 'brand-guidelines', 'SKILL.md'),
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });

    const search = await qitos(['skills', 'search', 'write the company newsletter', '--root', root, '--top', '2'], dir);
    expect(search.out.split('\n')[2]).toMatch(/^internal-comms\s+0\.\d{3}\s+A set of resources/);
    // --top 2, but the other skills score below the default threshold: one row under the header
    expect(search.out.trim().split('\n')).toHaveLength(3);
    // Skills unrelated to the query are left out by default (they score near 0 or below); --threshold -1 lists them.
    expect(
      (await qitos(['skills', 'search', 'quantum chromodynamics lattice', '--root', root, '--json'], dir)).out,
    ).toMatch(/"matches": \[\]/);
    expect(
      JSON.parse(
        (
          await qitos(
            ['skills', 'search', 'quantum chromodynamics lattice', '--root', root, '--json', '--threshold', '-1'],
            dir,
          )
        ).out,
      ).matches,
    ).toHaveLength(3);
    const json = JSON.parse(
      (await qitos(['skills', 'search', 'slides with a theme', '--root', root, '--json', '--top', '1'], dir)).out,
    );
    expect(json).toMatchObject({
      query: 'slides with a theme',
      embedder: 'hashing:v1-512',
      matches: [{ name: 'theme-factory', score: expect.any(Number) }],
    });

    const upd = await qitos(
      ['skills', 'update', 'theme-factory', '--description', 'Bakes sourdough bread.', '--root', root],
      dir,
    );
    expect(upd.out).toBe('updated theme-factory: description changed\n');
    expect(
      JSON.parse((await qitos(['skills', 'search', 'bake bread', '--root', root, '--json', '--top', '1'], dir)).out)
        .matches[0].name,
    ).toBe('theme-factory');

    expect((await qitos(['skills', 'uninstall', 'brand-guidelines', '--root', root], dir)).out).toBe(
      'uninstalled brand-guidelines\n',
    );
    const bad = await qitos(['skills', 'uninstall', 'brand-guideline', '--root', root], dir);
    expect(bad.err).toBe('qitos: Unknown skill "brand-guideline". Available skills: internal-comms, theme-factory.\n');
    expect(
      (await qitos(['skills', 'list', '--root', root], dir)).out
        .split('\n')
        .slice(2, 4)
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual(['internal-comms', 'theme-factory']);
  });

  it('update --zip replaces the skill; update without a change is a usage error', async () => {
    const root = join(dir, 'root');
    await qitos(['skills', 'install', await zipOf('theme-factory'), '--root', root], dir);
    const r = await qitos(
      ['skills', 'update', 'theme-factory', '--zip', await zipOf('theme-factory'), '--root', root, '--json'],
      dir,
    );
    expect(JSON.parse(r.out)).toMatchObject({ skill: { name: 'theme-factory' }, replaced: true, files: 12 });
    expect((await qitos(['skills', 'update', 'theme-factory', '--root', root], dir)).err).toBe(
      'qitos: give exactly one of --description <text> or --zip <file>\n',
    );
  });

  it('a malicious ZIP, a missing file and a bad embedder are one-line errors; the root defaults to ~/.qitos/skills', async () => {
    const { makeZip } = await import('../helpers/zip-writer.js');
    await writeFile(
      join(dir, 'evil.zip'),
      makeZip([
        { name: 'SKILL.md', data: '---\nname: evil\ndescription: x\n---\n' },
        { name: '../../escape', data: 'x' },
      ]),
    );
    const home = join(dir, 'home');
    const evil = await qitos(['skills', 'install', 'evil.zip'], dir, { HOME: home });
    expect(evil.err).toBe('qitos: skill ZIP refused: entry "../../escape" leaves the skill folder (..)\n');
    expect((await qitos(['skills', 'list', '--json'], dir, { HOME: home })).out).toContain('"skills": []');
    expect((await qitos(['skills', 'install', 'missing.zip', '--root', 'r'], dir)).err).toMatch(
      /^qitos: skill ZIP refused: not a readable ZIP file: ENOENT/,
    );
    expect((await qitos(['skills', 'search', 'x', '--root', 'r', '--embedder', 'word2vec'], dir)).err).toBe(
      'qitos: unknown --embedder "word2vec": use hashing, transformers:<model folder> or openai:<model>\n',
    );
    expect(
      (await qitos(['skills', 'search', 'x', '--root', 'r', '--embedder', 'openai:text-embedding-3-small'], dir)).err,
    ).toBe('qitos: --embedder openai:<model> needs --embedder-url <base URL>, e.g. http://localhost:11434/v1\n');
  });
});
