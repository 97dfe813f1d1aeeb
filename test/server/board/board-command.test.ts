import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_HOME, QITOS_BIN, qitos, recordCalcRun, tempDir } from '../../helpers/cli-harness.js';

let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('qitos-board-cmd-'));
  await recordCalcRun(dir);
});
afterAll(() => cleanup?.());

describe('qitos board (the command)', () => {
  it('a folder that does not exist is a usage error naming it', async () => {
    const r = await qitos(['board', 'nope'], dir);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`qitos: board: folder not found: ${join(dir, 'nope')}\n`);
  });

  it('listens on loopback, lists the traces folder, and stops on SIGTERM writing its cache', async () => {
    const cache = join(dir, 'xdg-cache');
    await mkdir(cache);
    const child = spawn(process.execPath, [QITOS_BIN, 'board', '--port', '0'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', XDG_CONFIG_HOME: CONFIG_HOME, XDG_CACHE_HOME: cache },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (out += d));
    const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const url = await new Promise<string>((res, rej) => {
        const t = setInterval(() => {
          const m = /listening on (http:\/\/127\.0\.0\.1:\d+)\/ .*\n.*\n/.exec(out);
          if (m || child.exitCode !== null) clearInterval(t);
          if (m) res(m[1]);
          else if (child.exitCode !== null) rej(new Error(`qitos board exited: ${out}`));
        }, 20);
      });
      expect(out).toMatch(/1 run\(s\), 0 bench folder\(s\) in .*traces\n/);
      expect(out).toMatch(/no token set: any local user can call this server/);
      const body = (await (await fetch(`${url}/api/runs`)).json()) as { rows: Array<{ agent: string }> };
      expect(body.rows.map((r) => r.agent)).toEqual(['CalcAgent']);
      child.kill('SIGTERM');
      expect(await exit).toBe(0);
      expect(out).toMatch(/qitos board: SIGTERM: stopping\n$/);
      const { readdir } = await import('node:fs/promises');
      expect(await readdir(join(cache, 'qitos', 'board'))).toEqual([expect.stringMatching(/^[0-9a-f]{24}\.json$/)]);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});
