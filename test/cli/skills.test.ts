import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, qitos, tempDir } from '../helpers/cli-harness.js';

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
    expect(r.out.split('\n').slice(2, 5).map((l) => l.split(/\s+/)[0])).toEqual(['brand-guidelines', 'internal-comms', 'theme-factory']);
    expect(r.err).toBe(`skipped ${join(dir, 'broken', 'SKILL.md')}: frontmatter field "name" must be 1-64 lowercase letters, digits or hyphens\n`);
    const json = JSON.parse((await qitos(['skills', 'list', join(FIXTURES, 'skills'), '--json'], dir)).out);
    expect(json.skills.map((s: { name: string }) => s.name)).toEqual(['brand-guidelines', 'internal-comms', 'theme-factory']);
    expect(json.skipped).toEqual([]);
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
    await writeFile(join(dir, 'replies.json'), JSON.stringify([{ text: '{"action": {"name": "skill", "args": {"name": "brand-guidelines"}}}' }, { text: '{"final_answer": "styled"}' }]));
    const r = await qitos(['run', CALC_AGENT, '-t', 'style it', '-m', `scripted:${join(dir, 'replies.json')}`, '-c', 'q.yaml', '--json'], dir);
    expect(r.code, r.err).toBe(0);
    const { traceDir } = JSON.parse(r.out);
    const manifest = JSON.parse(await readFile(join(traceDir, 'manifest.json'), 'utf8'));
    expect(manifest.tools).toEqual(['calc', 'skill']);
    const step1 = JSON.parse((await readFile(join(traceDir, 'steps.jsonl'), 'utf8')).split('\n')[0]);
    expect(step1.results[0]).toMatchObject({ name: 'skill', status: 'success', output: expect.stringContaining('# Anthropic Brand Styling') });
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
