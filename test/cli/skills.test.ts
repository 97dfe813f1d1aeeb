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
