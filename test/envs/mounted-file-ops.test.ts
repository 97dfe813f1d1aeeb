import { mkdir, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HostEnv, MemoryEnv } from '../../src/envs/index.js';
import { tempDir } from '../helpers/kernel-fixtures.js';

async function hostFolder(): Promise<string> {
  const dir = await tempDir();
  await mkdir(join(dir, 'docs'));
  await writeFile(join(dir, 'README.md'), 'read me');
  await writeFile(join(dir, 'docs', 'a.md'), 'A');
  return realpath(dir);
}

describe('read-only mounts', () => {
  it('a MemoryEnv shows a host folder under /mnt: read, list, stat, glob; names that clash are numbered', async () => {
    const env = new MemoryEnv({ files: { 'own.txt': 'mine' } });
    const folder = await hostFolder();
    const at = await env.ops('mount')!.mountReadOnly(folder);
    expect(at).toMatch(/^\/mnt\/qitos-test-/);
    expect(await env.ops('mount')!.mountReadOnly(folder)).toBe(at);
    const files = env.ops('file')!;
    expect(await files.readText(`${at}/docs/a.md`)).toBe('A');
    expect(await files.readText('own.txt')).toBe('mine');
    expect((await files.list(at)).map((s) => [s.path, s.type])).toEqual([
      [`${at}/README.md`, 'file'],
      [`${at}/docs`, 'directory'],
    ]);
    expect(await files.stat(`${at}/docs/a.md`)).toMatchObject({ path: `${at}/docs/a.md`, type: 'file', size: 1 });
    expect(await files.glob('**/*.md', { cwd: at })).toEqual([`${at}/README.md`, `${at}/docs/a.md`]);
    const other = join(await tempDir(), 'docs');
    await mkdir(other);
    expect(await env.ops('mount')!.mountReadOnly(other)).toBe('/mnt/docs');
    const clash = join(await tempDir(), 'docs');
    await mkdir(clash);
    expect(await env.ops('mount')!.mountReadOnly(clash)).toBe('/mnt/docs-2');
  });

  it('nothing under a mount can be written or removed, on either env; the rest of the workspace can', async () => {
    const folder = await hostFolder();
    for (const env of [new MemoryEnv(), new HostEnv({ root: await tempDir() })]) {
      const at = await env.ops('mount')!.mountReadOnly(folder);
      const files = env.ops('file')!;
      await expect(files.writeText(`${at}/new.txt`, 'x')).rejects.toThrow(`is mounted read-only`);
      await expect(files.writeText(`${at}/docs/../README.md`, 'x')).rejects.toThrow(`is mounted read-only`);
      await expect(files.remove(`${at}/docs`, { recursive: true })).rejects.toThrow('is mounted read-only');
      await files.writeText('fine.txt', 'ok');
      expect(await files.readText('fine.txt')).toBe('ok');
    }
    // The host folder behind the mount is as it was: nothing written, renamed or removed through it.
    expect(await readFile(join(folder, 'README.md'), 'utf8')).toBe('read me');
    expect(await readFile(join(folder, 'docs', 'a.md'), 'utf8')).toBe('A');
  });

  it('a HostEnv shows the folder at its real path; a symlink in it that points out is refused', async () => {
    const folder = await hostFolder();
    const outside = await tempDir();
    await writeFile(join(outside, 'secret'), 'no');
    await symlink(join(outside, 'secret'), join(folder, 'leak'));
    const env = new HostEnv({ root: await tempDir() });
    const at = await env.ops('mount')!.mountReadOnly(folder);
    expect(at).toBe(folder);
    expect(await env.ops('file')!.readText(join(at, 'docs', 'a.md'))).toBe('A');
    await expect(env.ops('file')!.readText(join(at, 'leak'))).rejects.toThrow(/outside/);
    await expect(env.ops('file')!.readText(join(at, '..', 'x'))).rejects.toThrow(/outside the workspace/);
  });

  it('mounting what is not a folder is an error naming it', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'f'), 'x');
    await expect(new MemoryEnv().ops('mount')!.mountReadOnly(join(dir, 'f'))).rejects.toThrow(
      `cannot mount ${join(dir, 'f')}: not a folder`,
    );
    await expect(new MemoryEnv().ops('mount')!.mountReadOnly(join(dir, 'missing'))).rejects.toThrow('not a folder');
  });
});
