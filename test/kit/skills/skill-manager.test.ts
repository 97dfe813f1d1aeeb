import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SkillManager, withDescription, type SkillStep } from '../../../src/kit/skills/index.js';
import { fileTree } from '../../helpers/file-tree.js';
import { tempDir } from '../../helpers/kernel-fixtures.js';
import { makeZip, skillMd, zipFolder } from '../../helpers/zip-writer.js';

const REPO = resolve(__dirname, '../../..');
const FIXTURES = join(REPO, 'test/fixtures/skills');
const fixtureZip = (name: string) => zipFolder(join(FIXTURES, name), `${name}/`);
const demoZip = (description: string, extra: Record<string, string> = {}) =>
  makeZip([
    { name: 'demo/SKILL.md', data: skillMd('demo', description) },
    ...Object.entries(extra).map(([name, data]) => ({ name: `demo/${name}`, data })),
  ]);

/** The skill folders of a root (without the .qitos bookkeeping). */
const skillFolders = (root: string) =>
  readdirSync(root)
    .filter((f) => !f.startsWith('.'))
    .sort();

describe('SkillManager: lifecycle', () => {
  it('installs the fixture skills from ZIPs, lists them with metadata, and finds them by meaning', async () => {
    const root = join(await tempDir(), 'skills');
    const m = await SkillManager.open(root);
    for (const name of ['brand-guidelines', 'internal-comms', 'theme-factory']) {
      const r = await m.install(fixtureZip(name));
      expect(r).toMatchObject({
        skill: { name, dir: join(root, name), license: 'Complete terms in LICENSE.txt' },
        replaced: false,
      });
      expect(fileTree(join(root, name))).toEqual(fileTree(join(FIXTURES, name)));
    }
    const { skills, skipped } = await m.list();
    expect(skills.map((s) => s.name)).toEqual(['brand-guidelines', 'internal-comms', 'theme-factory']);
    expect(skills[0].hash).toMatch(/^[0-9a-f]{64}$/);
    expect(skipped).toEqual([]);
    expect((await m.search('style slides with a color theme', { top: 1 }))[0].name).toBe('theme-factory');
    expect((await m.search('write the company newsletter', { top: 1 }))[0].name).toBe('internal-comms');
    expect((await m.search('Anthropic brand colors and typography', { top: 1 }))[0].name).toBe('brand-guidelines');
  });

  it('installs from a ZIP file path with SKILL.md at the root', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'brand.zip'), zipFolder(join(FIXTURES, 'brand-guidelines')));
    const m = await SkillManager.open(join(dir, 'skills'));
    expect((await m.install(join(dir, 'brand.zip'))).skill.name).toBe('brand-guidelines');
  });

  it('a second install of a name is an error unless replace; replace swaps the whole folder', async () => {
    const root = await tempDir();
    const m = await SkillManager.open(root);
    await m.install(demoZip('First version.', { 'old.md': 'old' }));
    await expect(m.install(demoZip('Second version.'))).rejects.toThrow(
      `skill "demo" is already installed in ${join(root, 'demo')}; use update to replace it`,
    );
    expect(readFileSync(join(root, 'demo/SKILL.md'), 'utf8')).toContain('First version.');
    const r = await m.install(demoZip('Second version.', { 'new.md': 'new' }), { replace: true });
    expect(r.replaced).toBe(true);
    expect(Object.keys(fileTree(join(root, 'demo'))).sort()).toEqual(['SKILL.md', 'new.md']);
    expect((await m.search('second version', { top: 1 }))[0]).toMatchObject({
      name: 'demo',
      description: 'Second version.',
    });
  });

  it('update --description changes only the frontmatter description, and the index follows', async () => {
    const root = await tempDir();
    const m = await SkillManager.open(root);
    await m.install(fixtureZip('theme-factory'));
    const before = readFileSync(join(root, 'theme-factory/SKILL.md'), 'utf8');
    await m.update('Theme-Factory', { description: 'Paints houses in bright colours.' });
    const after = readFileSync(join(root, 'theme-factory/SKILL.md'), 'utf8');
    expect(after).toBe(before.replace(/^description: .*$/m, 'description: Paints houses in bright colours.'));
    expect((await m.list()).skills[0]).toMatchObject({
      description: 'Paints houses in bright colours.',
      license: 'Complete terms in LICENSE.txt',
    });
    expect((await m.search('paint a house', { top: 1 }))[0]).toMatchObject({
      name: 'theme-factory',
      description: 'Paints houses in bright colours.',
    });
    await expect(m.update('theme-factory', { description: 'x'.repeat(1025) })).rejects.toThrow(
      'description is 1025 characters; at most 1024 are allowed',
    );
    await expect(m.update('theme-factory', { description: '   ' })).rejects.toThrow('description must not be empty');
    expect(readFileSync(join(root, 'theme-factory/SKILL.md'), 'utf8')).toBe(after);
  });

  it('update --zip replaces the skill; a ZIP of another skill is refused', async () => {
    const root = await tempDir();
    const m = await SkillManager.open(root);
    await m.install(demoZip('Old.'));
    await expect(m.update('demo', { zip: fixtureZip('theme-factory') })).rejects.toThrow(
      'the new ZIP holds skill "theme-factory", not "demo"; install it as a new skill instead',
    );
    await m.update('demo', { zip: demoZip('New.', { 'x.md': 'x' }) });
    expect(readFileSync(join(root, 'demo/SKILL.md'), 'utf8')).toContain('New.');
    await expect(m.update('demo', {})).rejects.toThrow('update needs exactly one of');
  });

  it('uninstall removes the folder and the index entry; unknown names get a did-you-mean', async () => {
    const root = await tempDir();
    const m = await SkillManager.open(root);
    await m.install(fixtureZip('brand-guidelines'));
    await m.install(fixtureZip('theme-factory'));
    await expect(m.uninstall('theme-factroy')).rejects.toThrow(
      'Unknown skill "theme-factroy". Did you mean: theme-factory?',
    );
    await m.uninstall('THEME-FACTORY');
    expect(skillFolders(root)).toEqual(['brand-guidelines']);
    expect((await m.search('slides theme', { top: 5 })).map((s) => s.name)).toEqual(['brand-guidelines']);
    expect(await m.retrieval.size()).toBe(1);
  });

  it('a refused ZIP leaves the root exactly as it was', async () => {
    const root = await tempDir();
    const m = await SkillManager.open(root);
    await m.install(fixtureZip('brand-guidelines'));
    const before = fileTree(root);
    await expect(
      m.install(
        makeZip([
          { name: 'SKILL.md', data: skillMd('evil', 'Evil.') },
          { name: '../escape.txt', data: 'x' },
        ]),
      ),
    ).rejects.toThrow(/leaves the skill folder/);
    await expect(
      m.install(makeZip([{ name: 'SKILL.md', data: '---\nname: Bad Name\ndescription: x\n---\n' }])),
    ).rejects.toThrow('the ZIP: SKILL.md frontmatter field "name" must be kebab-case');
    await expect(m.install(makeZip([{ name: 'SKILL.md', data: skillMd('long', 'x'.repeat(1100)) }]))).rejects.toThrow(
      'description" is 1100 characters; at most 1024 are allowed',
    );
    expect(fileTree(root)).toEqual(before);
  });

  it('an edit made outside the manager is picked up by its content hash', async () => {
    const root = await tempDir();
    await (await SkillManager.open(root)).install(demoZip('Bakes bread.'));
    writeFileSync(join(root, 'demo/SKILL.md'), skillMd('demo', 'Repairs bicycles.'));
    await mkdir(join(root, 'hand-made'));
    writeFileSync(join(root, 'hand-made/SKILL.md'), skillMd('hand-made', 'Knits scarves.'));
    const m = await SkillManager.open(root);
    expect((await m.search('fix my bicycle', { top: 1 }))[0]).toMatchObject({
      name: 'demo',
      description: 'Repairs bicycles.',
    });
    expect((await m.search('knit a scarf', { top: 1 }))[0].name).toBe('hand-made');
  });

  it('an exception in the middle of a replace leaves the old skill, restored by the next holder of the lock', async () => {
    const root = await tempDir();
    await (await SkillManager.open(root)).install(demoZip('Old one.', { 'old.md': 'old' }));
    const before = fileTree(join(root, 'demo'));
    const failing = await SkillManager.open(root, {
      onStep: (s) => {
        if (s === 'moved-aside') throw new Error('disk on fire');
      },
    });
    await expect(failing.update('demo', { zip: demoZip('New one.') })).rejects.toThrow('disk on fire');
    expect(existsSync(join(root, 'demo'))).toBe(false); // half-way: the old folder is in trash, the journal says so
    const m = await SkillManager.open(root);
    expect(fileTree(join(root, 'demo'))).toEqual(before);
    expect((await m.search('old one', { top: 1 }))[0].description).toBe('Old one.');
    expect(readdirSync(join(root, '.qitos')).sort()).toEqual(['index']);
  });
});

describe('SkillManager: a process killed at any step leaves the old state or the new one, never a mix', () => {
  /** Runs one mutation in a child process that SIGKILLs itself at `step`; resolves with how it ended. */
  function crashAt(
    root: string,
    op: string,
    step: SkillStep,
    zip?: string,
  ): Promise<{ signal: NodeJS.Signals | null; stderr: string }> {
    const child = spawn(process.execPath, [
      '--import',
      resolve(REPO, 'node_modules/tsx/dist/loader.mjs'),
      resolve(REPO, 'test/fixtures/skill-manager-crash.ts'),
      root,
      op,
      step,
      ...(zip ? [zip] : []),
    ]);
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    return new Promise((done) => child.on('close', (_code, signal) => done({ signal, stderr })));
  }

  const cases: Array<[string, SkillStep, 'old' | 'new']> = [
    ['install', 'unpacked', 'old'],
    ['install', 'moved', 'new'],
    ['install', 'indexed', 'new'],
    ['replace', 'unpacked', 'old'],
    ['replace', 'journaled', 'old'],
    ['replace', 'moved-aside', 'old'],
    ['replace', 'moved', 'new'],
    ['uninstall', 'moved', 'new'],
    ['uninstall', 'indexed', 'new'],
    ['describe', 'described', 'new'],
  ];

  // Concurrent: each case waits on a child process. Temp folders are the test's own (the shared clean-up hook is per test).
  it.concurrent.for(cases)(
    '%s killed after "%s" -> %s state',
    async ([op, step, expected], { expect, onTestFinished }) => {
      const dir = await mkdtemp(join(tmpdir(), 'qitos-crash-'));
      onTestFinished(() => rm(dir, { recursive: true, force: true }));
      const root = join(dir, 'skills');
      const zip = join(dir, 'demo.zip');
      writeFileSync(zip, demoZip('The new demo.', { 'new.md': 'new' }));
      const m0 = await SkillManager.open(root);
      if (op !== 'install') await m0.install(demoZip('The old demo.', { 'old.md': 'old' }));
      const old = existsSync(join(root, 'demo')) ? fileTree(join(root, 'demo')) : null;

      const crash = await crashAt(root, op, step, zip);
      expect(crash.signal, crash.stderr).toBe('SIGKILL');
      const m = await SkillManager.open(root); // takes over the dead process's lock and settles

      const now = existsSync(join(root, 'demo')) ? fileTree(join(root, 'demo')) : null;
      const fresh = { 'SKILL.md': skillMd('demo', 'The new demo.'), 'new.md': 'new' };
      const after: Record<string, Record<string, string> | null> = {
        install: fresh,
        replace: fresh,
        uninstall: null,
        describe: old && { ...old, 'SKILL.md': withDescription(old['SKILL.md'], 'A crashed description.') },
      };
      expect(now).toEqual(expected === 'old' ? old : after[op]);
      // The index agrees with the folders, and nothing is left in staging, trash or the lock.
      const hits = await m.search('demo', { top: 5 });
      expect(hits.map((h) => h.description)).toEqual(now ? [(await m.list()).skills[0].description] : []);
      expect(readdirSync(join(root, '.qitos')).sort()).toEqual(['index']);
    },
  );
});

describe('SkillManager: the root lock', () => {
  it('serialises concurrent mutations from two managers of one root', async () => {
    const root = await tempDir();
    const [a, b] = await Promise.all([SkillManager.open(root), SkillManager.open(root)]);
    const zips = ['brand-guidelines', 'internal-comms', 'theme-factory'].map(fixtureZip);
    await Promise.all([a.install(zips[0]), b.install(zips[1]), a.install(zips[2])]);
    expect(skillFolders(root)).toEqual(['brand-guidelines', 'internal-comms', 'theme-factory']);
    // b saw a's writes: its index is reloaded when another manager changed it
    expect((await b.search('style slides with a theme', { top: 1 }))[0].name).toBe('theme-factory');
    expect(await b.retrieval.size()).toBe(3);
  });

  it('waits for a live holder, then names it; takes over the lock of a dead one', async () => {
    const root = await tempDir();
    const m = await SkillManager.open(root, { lockTimeoutMs: 300 });
    const holder = spawn('sleep', ['30']);
    try {
      writeFileSync(
        join(root, '.qitos/lock'),
        JSON.stringify({
          pid: holder.pid,
          host: (await import('node:os')).hostname(),
          since: '2030-01-01T00:00:00.000Z',
        }),
      );
      await expect(m.install(demoZip('x'))).rejects.toThrow(
        `skills root ${root} is locked by process ${holder.pid} on`,
      );
    } finally {
      holder.kill('SIGKILL');
      await new Promise((r) => holder.once('exit', r));
    }
    // the holder is dead now: its lock is taken over
    expect((await m.install(demoZip('x'))).skill.name).toBe('demo');
    expect(existsSync(join(root, '.qitos/lock'))).toBe(false);
  });
});
