import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine, type Env, type ToolContext, type ToolOutput } from '../../../src/index.js';
import { nullEnv } from '../../../src/core/index.js';
import { HostEnv, MemoryEnv } from '../../../src/envs/index.js';
import { ScriptedModel } from '../../../src/models/index.js';
import { jsonParser } from '../../../src/kit/parsers/index.js';
import { readTrace } from '../../../src/trace/index.js';
import { loadSkills, skillTool } from '../../../src/kit/skills/index.js';
import { ModelPathAgent, tempDir } from '../../helpers/kernel-fixtures.js';

const FIXTURES = resolve(__dirname, '../../fixtures/skills');
const skillMd = (fm: string, body = '# Body\n') => `---\n${fm}\n---\n${body}`;
/** The context a tool call gets; the skill tool only reads the run's env. */
const inEnv = (env: Env) => ({ env }) as ToolContext;
const text = (out: string | ToolOutput) => (typeof out === 'string' ? out : out.output);

describe('skill tool', () => {
  it('lists the skills in its description and loads one with its files; the base folder is where the env mounted it', async () => {
    const tool = skillTool(await loadSkills([FIXTURES]));
    expect(tool.keepOutput).toBe(true);
    expect(tool.description).toMatch(/- theme-factory: Toolkit for styling/);
    const host = text(await tool.execute({ name: 'theme-factory' }, inEnv(new HostEnv({ root: await tempDir() }))));
    expect(host).toMatch(/^<skill name="theme-factory">\n# Theme Factory Skill/);
    expect(host).toContain(`Base folder: ${await realpath(join(FIXTURES, 'theme-factory'))}`);
    expect(host).toContain('- themes/ocean-depths.md');
    expect(host).not.toContain('- SKILL.md');
    const memory = text(await tool.execute({ name: 'theme-factory' }, inEnv(new MemoryEnv())));
    expect(memory).toContain('Base folder: /mnt/theme-factory');
  });

  it('reads a file of the skill through the run env: a host workspace and an in-memory env alike', async () => {
    const tool = skillTool(await loadSkills([FIXTURES]));
    for (const env of [new HostEnv({ root: await tempDir() }), new MemoryEnv()]) {
      const out = await tool.execute({ name: 'theme-factory', file: 'themes/ocean-depths.md' }, inEnv(env));
      expect(text(out)).toMatch(/Ocean/i);
      // the env now shows the folder, read-only
      const at = env instanceof MemoryEnv ? '/mnt/theme-factory' : await realpath(join(FIXTURES, 'theme-factory'));
      expect(await env.ops('file')!.readText(`${at}/themes/ocean-depths.md`)).toMatch(/Ocean/i);
      await expect(env.ops('file')!.writeText(`${at}/themes/ocean-depths.md`, 'defaced')).rejects.toThrow(
        /mounted read-only/,
      );
      await expect(env.ops('file')!.remove(`${at}/themes`, { recursive: true })).rejects.toThrow(/mounted read-only/);
    }
  });

  it('reads are jailed to the skill folder, symlinks included', async () => {
    const root = await tempDir();
    await mkdir(join(root, 'jailed'));
    await writeFile(join(root, 'jailed', 'SKILL.md'), skillMd('name: jailed\ndescription: Has a link out.'));
    await writeFile(join(root, 'secret.txt'), 'outside');
    await symlink(join(root, 'secret.txt'), join(root, 'jailed', 'link.txt'));
    const tool = skillTool(await loadSkills([FIXTURES, root]));
    const ctx = inEnv(new MemoryEnv());
    await expect(tool.execute({ name: 'theme-factory', file: '../brand-guidelines/SKILL.md' }, ctx)).rejects.toThrow(
      /outside/i,
    );
    await expect(tool.execute({ name: 'theme-factory', file: '/etc/passwd' }, ctx)).rejects.toThrow(/outside/i);
    await expect(tool.execute({ name: 'jailed', file: 'link.txt' }, ctx)).rejects.toThrow(/outside/i);
    await expect(tool.execute({ name: 'nope' }, ctx)).rejects.toThrow(
      'Unknown skill "nope". Available skills: brand-guidelines, internal-comms, jailed, theme-factory.',
    );
    // The same answer as the other skill tools give: close names first.
    await expect(tool.execute({ name: 'theme-factroy' }, ctx)).rejects.toThrow(
      'Unknown skill "theme-factroy". Did you mean: theme-factory?',
    );
  });

  it('an env that cannot mount: the skill loads, its files are a clear error', async () => {
    const tool = skillTool(await loadSkills([FIXTURES]));
    expect(text(await tool.execute({ name: 'theme-factory' }, inEnv(nullEnv)))).toContain(
      `Base folder: ${join(FIXTURES, 'theme-factory')}`,
    );
    await expect(
      tool.execute({ name: 'theme-factory', file: 'themes/ocean-depths.md' }, inEnv(nullEnv)),
    ).rejects.toThrow(/env "null" cannot mount skill folders read-only/);
  });

  it('refuses binary files', async () => {
    const root = await tempDir();
    await mkdir(join(root, 'bin-skill'));
    await writeFile(join(root, 'bin-skill', 'SKILL.md'), skillMd('name: bin-skill\ndescription: Has a binary.'));
    await writeFile(join(root, 'bin-skill', 'blob.dat'), Buffer.from([0, 1, 2, 3, 0, 255]));
    const tool = skillTool(await loadSkills([root]));
    await expect(tool.execute({ name: 'bin-skill', file: 'blob.dat' }, inEnv(new MemoryEnv()))).rejects.toThrow(
      /binary file/,
    );
  });

  it('an agent in a MemoryEnv loads a skill, reads one of its files and answers; errors come back to the model', async () => {
    const dir = await tempDir();
    const model = new ScriptedModel([
      '{"action":{"name":"skill","args":{"name":"themes"}}}',
      '{"action":{"name":"skill","args":{"name":"theme-factory"}}}',
      '{"action":{"name":"skill","args":{"name":"theme-factory","file":"themes/golden-hour.md"}}}',
      '{"final_answer":"applied golden-hour"}',
    ]);
    const agent = new ModelPathAgent({ model, parser: jsonParser(), tools: [skillTool(await loadSkills([FIXTURES]))] });
    const r = await new Engine({ agent, env: new MemoryEnv(), trace: { dir } }).run('Style my slides');
    expect(r.finalResult).toBe('applied golden-hour');
    const t = await readTrace(r.traceDir!);
    expect(t.steps[0].results[0]).toMatchObject({
      status: 'error',
      error: expect.stringContaining('Unknown skill "themes"'),
    });
    expect(t.steps[1].results[0]).toMatchObject({
      status: 'success',
      output: expect.stringContaining('Base folder: /mnt/theme-factory'),
    });
    expect(t.steps[2].results[0]).toMatchObject({ status: 'success', output: expect.stringMatching(/golden/i) });
    expect(JSON.stringify(model.requests[2].messages)).toContain('# Theme Factory Skill');
  });
});
