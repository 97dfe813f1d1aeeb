import { mkdir, readdir } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SkillManager } from '../../src/kit/skills/index.js';
import { tempDir } from '../helpers/kernel-fixtures.js';
import { makeZip, skillMd } from '../helpers/zip-writer.js';
import { serversClosedAfterEach, type TestServer } from './serve-fixtures.js';

const server = serversClosedAfterEach();

/** A request with exactly these headers (fetch would not let a test set Host), and its status and JSON body. */
function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: Buffer | string,
): Promise<{ status: number; json: { error?: { code: string | null; message: string } } & Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (t: string) => (text += t));
      res.on('end', () => resolve({ status: res.statusCode!, json: text ? JSON.parse(text) : {} }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const chat = JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'transfer the funds' }] });
const runsOf = async (s: TestServer) => (await readdir(s.traceDir).catch(() => [])).length;

/** A multipart body holding a skill ZIP in the field "file", as a browser's form would send it. */
async function skillForm(name: string): Promise<{ body: Buffer; type: string }> {
  const form = new FormData();
  form.append(
    'file',
    new Blob([
      new Uint8Array(
        makeZip([{ name: `${name}/SKILL.md`, data: skillMd(name, 'A skill a web page tries to plant.') }]),
      ),
    ]),
    'skill.zip',
  );
  const r = new Request('http://x/', { method: 'POST', body: form });
  return { body: Buffer.from(await r.arrayBuffer()), type: r.headers.get('content-type')! };
}

describe('qitos serve without a token: what a web page the user opens can do', () => {
  it('cannot start a run with a request a browser sends without a preflight (text/plain, a form): 415, no run', async () => {
    const s = await server();
    const host = new URL(s.url).host;
    for (const type of [
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const res = await send(`${s.url}/v1/chat/completions`, 'POST', { host, 'content-type': type }, chat);
      expect(res.status, type).toBe(415);
      expect(res.json.error).toMatchObject({
        code: 'unsupported_media_type',
        message: expect.stringMatching(/must be sent as content-type application\/json/),
      });
    }
    expect(await runsOf(s)).toBe(0);
    expect(
      (
        await send(
          `${s.url}/v1/chat/completions`,
          'POST',
          { host, 'content-type': 'application/json; charset=utf-8' },
          chat,
        )
      ).status,
    ).toBe(200);
  });

  it("cannot reach it through DNS rebinding: a Host that is not the server's is refused 403 on every route", async () => {
    const s = await server();
    const port = new URL(s.url).port;
    for (const [method, path, body] of [
      ['GET', '/v1/models', undefined],
      ['POST', '/v1/chat/completions', chat],
      ['GET', '/v1/runs', undefined],
    ] as const) {
      const res = await send(
        `${s.url}${path}`,
        method,
        { host: `attacker.example:${port}`, 'content-type': 'application/json' },
        body,
      );
      expect(res.status, path).toBe(403);
      expect(res.json.error).toMatchObject({
        code: 'forbidden_host',
        type: 'invalid_request_error',
        message: expect.stringMatching(
          /Host "attacker\.example:\d+" is not a name this server listens as \(127\.0\.0\.1:\d+, localhost:\d+, \[::1\]:\d+\)/,
        ),
      });
    }
    expect(await runsOf(s)).toBe(0);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`])
      expect((await send(`${s.url}/v1/models`, 'GET', { host })).status).toBe(200);
  });

  it('accepts the names given with allowedHosts (a proxy or a port forward in front of it)', async () => {
    const s = await server({ allowedHosts: ['qitos.lan', 'localhost:9999'] });
    expect((await send(`${s.url}/v1/models`, 'GET', { host: 'qitos.lan:8080' })).status).toBe(200);
    expect((await send(`${s.url}/v1/models`, 'GET', { host: 'localhost:9999' })).status).toBe(200);
    expect((await send(`${s.url}/v1/models`, 'GET', { host: 'localhost:9998' })).status).toBe(403);
  });

  it("cannot call it from another origin, a sandboxed frame (Origin: null) or another site's fetch: 403, no run", async () => {
    const s = await server();
    const host = new URL(s.url).host;
    for (const headers of [
      { origin: 'https://attacker.example' },
      { origin: 'null' },
      { origin: 'http://localhost:3000' },
      { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' },
      { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors' },
    ] as Array<Record<string, string>>) {
      const res = await send(
        `${s.url}/v1/chat/completions`,
        'POST',
        { host, 'content-type': 'application/json', ...headers },
        chat,
      );
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.json.error?.code).toBe('forbidden_origin');
    }
    expect(await runsOf(s)).toBe(0);
    // its own origin works, and so does a link to it from elsewhere (a top-level GET navigation)
    expect(
      (
        await send(
          `${s.url}/v1/chat/completions`,
          'POST',
          { host, 'content-type': 'application/json', origin: s.url, 'sec-fetch-site': 'same-origin' },
          chat,
        )
      ).status,
    ).toBe(200);
    expect(
      (await send(`${s.url}/v1/models`, 'GET', { host, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' }))
        .status,
    ).toBe(200);
  });

  it('cannot install or replace a skill with a multipart form; a browser upload from its own page must carry x-qitos-upload', async () => {
    const root = join(await tempDir('qitos-serve-skills-'), 'skills');
    await mkdir(root);
    const s = await server({ skills: await SkillManager.open(root) });
    const host = new URL(s.url).host;
    const { body, type } = await skillForm('planted');
    for (const headers of [
      { origin: 'https://attacker.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' },
    ] as Array<Record<string, string>>) {
      const res = await send(
        `${s.url}/v1/skills?replace=true`,
        'POST',
        { host, 'content-type': type, ...headers },
        body,
      );
      expect(res.status, JSON.stringify(headers)).toBe(403);
    }
    const sameOrigin = await send(
      `${s.url}/v1/skills`,
      'POST',
      { host, 'content-type': type, origin: s.url, 'sec-fetch-site': 'same-origin' },
      body,
    );
    expect(sameOrigin.status).toBe(403);
    expect(sameOrigin.json.error?.message).toMatch(/must carry the header x-qitos-upload/);
    expect((await readdir(root)).filter((f) => !f.startsWith('.'))).toEqual([]);
    expect(
      (
        await send(
          `${s.url}/v1/skills`,
          'POST',
          { host, 'content-type': type, origin: s.url, 'x-qitos-upload': '1' },
          body,
        )
      ).status,
    ).toBe(201);
    // a client that is not a browser (curl, an SDK) sends no Origin and uploads as before
    expect((await send(`${s.url}/v1/skills?replace=true`, 'POST', { host, 'content-type': type }, body)).status).toBe(
      200,
    );
  });
});
