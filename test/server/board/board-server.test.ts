import fc from 'fast-check';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BoardIndex } from '../../../src/server/board/board-index.js';
import { startBoard, type RunningBoard } from '../../../src/server/board/start-board.js';
import { tempDir } from '../../helpers/cli-harness.js';
import { boardFixture, copyRun, type BoardFixture } from './board-fixtures.js';

let fx: BoardFixture;
let cleanup: () => Promise<void>;
let board: RunningBoard;
let secured: RunningBoard;
const TOKEN = 'board-s3cret-token';

/** A request with exactly these headers (fetch would not let a test set Host): status, headers and body. */
function send(
  url: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (t: string) => (text += t));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}
const json = async (url: string, headers: Record<string, string> = {}) => {
  const r = await send(url, headers);
  return { ...r, body: JSON.parse(r.text) };
};

beforeAll(async () => {
  let dir: string;
  ({ dir, cleanup } = await tempDir('qitos-board-server-'));
  fx = await boardFixture(dir);
  // a run whose steps.jsonl is a link to a file outside the board's folders
  await writeFile(join(dir, 'secret.txt'), 'top secret\n');
  const leaky = await copyRun(fx.a, fx.traces, 'leaky');
  await symlink(join(dir, 'secret.txt'), join(leaky, 'steps.jsonl'));
  await mkdir(join(dir, 'elsewhere'));
  await copyRun(fx.a, join(dir, 'elsewhere'), 'outside-run');
  await symlink(join(dir, 'elsewhere'), join(fx.traces, 'linked'));
  board = await startBoard({ index: new BoardIndex([fx.traces, fx.bench]), port: 0 });
  secured = await startBoard({ index: new BoardIndex([fx.traces]), port: 0, token: TOKEN });
});
afterAll(async () => {
  await board?.close();
  await secured?.close();
  await cleanup?.();
});

describe('qitos board over HTTP', () => {
  it('lists the runs and bench folders, then only what changed since the version the client holds', async () => {
    const { status, body } = await json(`${board.url}/api/runs`);
    expect(status).toBe(200);
    expect(body.full).toBe(true);
    const ids = body.rows.map((r: { id: string }) => r.id);
    expect(ids).toContain(`0/${basename(fx.a)}`);
    expect(ids).toContain(`0/${basename(fx.b)}`);
    expect(ids).toContain('0/leaky');
    expect(ids.filter((id: string) => id.startsWith('1/traces/'))).toHaveLength(3); // the bench's three trials
    expect(ids.some((id: string) => id.includes('outside-run'))).toBe(false); // behind a link: not listed
    expect(body.benches).toMatchObject([{ id: '1/', path: '.', suite: 'board-suite', trials: 3, passed: 2 }]);
    const again = await json(`${board.url}/api/runs?since=${body.version}`);
    expect(again.body).toMatchObject({ full: false, version: body.version, rows: [], removed: [] });
    expect((await json(`${board.url}/api/runs?since=-1`)).status).toBe(400);
  });

  it('opens a run in the viewer of qitos view, and two runs side by side', async () => {
    const one = await send(`${board.url}/view?run=${encodeURIComponent(`0/${basename(fx.a)}`)}`);
    expect(one.status).toBe(200);
    expect(one.headers['content-security-policy']).toMatch(/default-src 'none'.*frame-ancestors 'self'/);
    expect(one.text).toContain(`<title>qitos run ${basename(fx.a)}</title>`);
    const two = await send(
      `${board.url}/view?run=${encodeURIComponent(`0/${basename(fx.a)}`)}&b=${encodeURIComponent(`0/${basename(fx.b)}`)}`,
    );
    expect(two.text).toContain(`<title>qitos diff ${basename(fx.a)} vs ${basename(fx.b)}</title>`);
  });

  it("a bench folder's results link to its runs, and its report is the one of qitos bench report", async () => {
    const { body } = await json(`${board.url}/api/bench?id=${encodeURIComponent('1/')}`);
    expect(body.results.map((r: { taskId: string; pass: boolean }) => [r.taskId, r.pass])).toEqual([
      ['t1', false],
      ['t2', true],
      ['t3', true],
    ]);
    for (const r of body.results) expect(r.run).toMatch(/^1\/traces\//);
    const report = await send(`${board.url}/bench-report?id=${encodeURIComponent('1/')}`);
    expect(report.status).toBe(200);
    expect(report.text).toContain('<h1>qitos bench report</h1>');
    expect(report.headers['content-security-policy']).not.toMatch(/script-src/);
  });

  it('a run id from the URL never picks a file outside the listed runs: ../, encoded, absolute, links', async () => {
    const listed = new Set((await json(`${board.url}/api/runs`)).body.rows.map((r: { id: string }) => r.id as string));
    const part = fc.constantFrom(
      '..',
      '.',
      '',
      '0',
      '1',
      'traces',
      'leaky',
      'linked',
      'outside-run',
      basename(fx.a),
      '%2e%2e',
      '%2F',
      'etc',
      'passwd',
      '\\..',
    );
    await fc.assert(
      fc.asyncProperty(fc.array(part, { minLength: 1, maxLength: 6 }), async (parts) => {
        const id = parts.join('/');
        const r = await send(`${board.url}/view?run=${encodeURIComponent(id)}`);
        if (listed.has(id) && id !== '0/leaky') expect(r.status).toBe(200);
        else expect([403, 404, 409]).toContain(r.status);
        expect(r.text).not.toContain('top secret');
      }),
      { numRuns: 150 },
    );
    const leak = await json(`${board.url}/view?run=${encodeURIComponent('0/leaky')}`);
    expect(leak.status).toBe(403);
    expect(leak.body.error.message).toMatch(/steps\.jsonl links to .*secret\.txt, outside the board's folder/);
    for (const id of [
      '0/linked/outside-run',
      '0/../elsewhere/outside-run',
      `0/${join(fx.dir, 'elsewhere', 'outside-run')}`,
    ])
      expect((await send(`${board.url}/view?run=${encodeURIComponent(id)}`)).status, id).toBe(404);
    expect((await send(`${board.url}/bench-report?id=${encodeURIComponent('1/../..')}`)).status).toBe(404);
  });

  it('refuses what qitos serve refuses: a foreign Host (DNS rebinding), a foreign or null Origin, a cross-site fetch', async () => {
    const url = `${board.url}/api/runs`;
    const host = new URL(board.url).host;
    const bad = [
      [{ host: 'attacker.example' }, 'forbidden_host'],
      [{ host: `attacker.example:${new URL(board.url).port}` }, 'forbidden_host'],
      [{ host, origin: 'http://attacker.example' }, 'forbidden_origin'],
      [{ host, origin: 'null' }, 'forbidden_origin'],
      [{ host, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' }, 'forbidden_origin'],
      [{ host, 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'no-cors' }, 'forbidden_origin'],
    ] as const;
    for (const [headers, code] of bad) {
      const r = await json(url, headers);
      expect([r.status, r.body.error.code], JSON.stringify(headers)).toEqual([403, code]);
    }
    expect((await send(url, { host, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect((await send(url, { host: `localhost:${new URL(board.url).port}` })).status).toBe(200);
    // a link from another site opens the page (a top-level navigation, which cannot read it)
    expect(
      (await send(`${board.url}/`, { host, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' })).status,
    ).toBe(200);
  });

  it('with a token: requests need it as a bearer token or the cookie a browser gets from /?token=', async () => {
    const url = `${secured.url}/api/runs`;
    expect((await json(url)).body.error.code).toBe('invalid_api_key');
    expect((await send(url, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await send(url, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    expect((await send(`${secured.url}/?token=wrong`)).status).toBe(401);
    const login = await send(`${secured.url}/?token=${TOKEN}&x=1`);
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe('/?x=1');
    const cookie = String(login.headers['set-cookie']);
    expect(cookie).toMatch(/^qitos_board_token=.+; HttpOnly; SameSite=Strict; Path=\//);
    expect((await send(url, { cookie: cookie.split(';')[0] })).status).toBe(200);
    expect((await send(url, { cookie: 'qitos_board_token=nope' })).status).toBe(401);
  });

  it('will not listen beyond loopback without a token', async () => {
    await expect(startBoard({ index: new BoardIndex([fx.traces]), host: '0.0.0.0', port: 0 })).rejects.toThrow(
      /a token is required to listen on 0\.0\.0\.0/,
    );
  });
});
