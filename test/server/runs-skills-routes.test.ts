import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { SkillManager } from '../../src/kit/skills/index.js';
import { tempDir } from '../helpers/kernel-fixtures.js';
import { makeZip, skillMd } from '../helpers/zip-writer.js';
import { yamlBomb } from '../helpers/yaml-bomb.js';
import { serversClosedAfterEach, type TestServer } from './serve-fixtures.js';

const server = serversClosedAfterEach();
type Server = TestServer;
const ask = async (s: Server, model: string, content: string) => {
  const { response } = await new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'x', maxRetries: 0 }).chat.completions
    .create({ model, messages: [{ role: 'user', content }] })
    .withResponse();
  return response.headers.get('x-qitos-run-id')!;
};
/** The SSE frames of a response body: [event, parsed data]. */
async function frames(res: Response): Promise<Array<[string, unknown]>> {
  return (await res.text())
    .split('\n\n')
    .filter(Boolean)
    .map((f) => {
      const event = /^event: (.*)$/m.exec(f)?.[1] ?? 'message';
      return [event, JSON.parse(/^data: (.*)$/m.exec(f)![1])];
    });
}

describe('the runs API', () => {
  it('lists runs newest first, paged, with a manifest per run', async () => {
    const s = await server();
    expect(await (await fetch(`${s.url}/v1/runs`)).json()).toMatchObject({ data: [], total: 0, has_more: false });
    const ids = [];
    for (const q of ['a', 'b', 'c']) ids.push(await ask(s, 'echo', q));
    const page1 = await (await fetch(`${s.url}/v1/runs?limit=2`)).json();
    expect(page1).toMatchObject({ object: 'list', total: 3, has_more: true, next_offset: 2 });
    const page2 = await (await fetch(`${s.url}/v1/runs?limit=2&offset=2`)).json();
    expect(page2).toMatchObject({ has_more: false, next_offset: null });
    expect(new Set([...page1.data, ...page2.data].map((r: { runId: string }) => r.runId))).toEqual(new Set(ids));
    expect(page1.data[0]).toMatchObject({ status: 'completed', stopReason: 'final', live: false });
    expect(page1.data[0]).not.toHaveProperty('path');
    const m = await (await fetch(`${s.url}/v1/runs/${ids[0]}`)).json();
    expect(m).toMatchObject({
      runId: ids[0],
      status: 'completed',
      task: { objective: 'a' },
      summary: { finalResult: 'echo: a' },
    });
    const bad = await fetch(`${s.url}/v1/runs?limit=0`);
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.param).toBe('limit');
  });

  it('refuses run ids that are paths, and answers unknown runs 404', async () => {
    const s = await server();
    // `..` never reaches the route: the URL resolves it to /v1/ before the request is sent.
    const dots = await fetch(`${s.url}/v1/runs/..`);
    expect([dots.status, (await dots.json()).error.message]).toEqual([404, 'no route GET /v1/']);
    for (const id of ['..%2F..%2Fetc', '.hidden', 'a%2Fb']) {
      const res = await fetch(`${s.url}/v1/runs/${id}`);
      expect(res.status, id).toBe(400);
      const { error } = await res.json();
      expect([error.param, error.message], id).toEqual([
        'id',
        `not a run id: ${JSON.stringify(decodeURIComponent(id))}`,
      ]);
    }
    const unknown = await fetch(`${s.url}/v1/runs/20250101T000000-nosuchrun`);
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error).toMatchObject({ code: 'run_not_found', param: 'id' });
    expect((await fetch(`${s.url}/v1/runs/${encodeURIComponent('../x')}`)).status).toBe(400);
    const missing = await fetch(`${s.url}/v1/runs/run_nope/events`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe('run_not_found');
  });

  it("streams a finished run's events from its trace, from the first to the end", async () => {
    const s = await server();
    const id = await ask(s, 'adder', 'add');
    const res = await fetch(`${s.url}/v1/runs/${id}/events`);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const got = await frames(res);
    expect(got[0][0]).toBe('run_start');
    expect(got.map(([e]) => e)).toContain('tool_state');
    expect(got.at(-1)).toEqual(['end', { runId: id, stopReason: 'final' }]);
  });

  it("streams a running run's events live, from its first event, to its end", async () => {
    const s = await server({ slowMs: 300 });
    const answer = ask(s, 'slow', 'live');
    await new Promise<void>((r) => {
      const t = setInterval(() => {
        if (s.runs.all().length) {
          clearInterval(t);
          r();
        }
      }, 5);
    });
    const id = s.runs.all()[0].runId;
    const running = await (await fetch(`${s.url}/v1/runs`)).json();
    expect(running.data.find((r: { runId: string }) => r.runId === id)).toMatchObject({
      status: 'running',
      live: true,
    });
    const got = await frames(await fetch(`${s.url}/v1/runs/${id}/events`));
    await answer;
    expect(got[0]).toEqual(['run_start', expect.objectContaining({ runId: id })]);
    expect(got.filter(([e]) => e === 'model_event').length).toBeGreaterThan(5); // live stream deltas (the trace keeps none)
    expect(got.at(-1)).toEqual(['end', { runId: id, stopReason: 'final' }]);
  });

  it('renders the HTML viewer of a run, reloading itself while the run runs', async () => {
    const s = await server({ slowMs: 500 });
    const id = await ask(s, 'echo', 'view me');
    const res = await fetch(`${s.url}/v1/runs/${id}/view`);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const html = await res.text();
    expect(html).toContain(id);
    expect(html).not.toContain('http-equiv="refresh"');
    const answer = ask(s, 'slow', 'x');
    await new Promise<void>((r) => {
      const t = setInterval(() => {
        if (s.runs.all().length) {
          clearInterval(t);
          r();
        }
      }, 5);
    });
    const live = await (await fetch(`${s.url}/v1/runs/${s.runs.all()[0].runId}/view`)).text();
    expect(live).toContain('<meta http-equiv="refresh" content="2">');
    await answer;
  });
});

describe('the skills API', () => {
  const zip = (name: string, description: string) =>
    new Blob([new Uint8Array(makeZip([{ name: `${name}/SKILL.md`, data: skillMd(name, description) }]))], {
      type: 'application/zip',
    });
  const upload = (s: Server, file: Blob, query = '') => {
    const form = new FormData();
    form.append('file', file, 'skill.zip');
    return fetch(`${s.url}/v1/skills${query}`, { method: 'POST', body: form });
  };
  async function skillsServer(o: Parameters<typeof server>[0] = {}) {
    const root = join(await tempDir('qitos-serve-skills-'), 'skills');
    await mkdir(root);
    return server({ skills: await SkillManager.open(root), ...o });
  }

  it('installs a ZIP uploaded as multipart, lists, searches with scores, patches the description and deletes', async () => {
    const s = await skillsServer();
    const res = await upload(s, zip('pdf-tools', 'Extract text and tables from PDF files.'));
    expect(res.status).toBe(201);
    const installed = await res.json();
    expect(installed).toMatchObject({
      skill: { name: 'pdf-tools', description: 'Extract text and tables from PDF files.' },
      replaced: false,
    });
    expect((await upload(s, zip('csv-tools', 'Clean and join CSV spreadsheets.'))).status).toBe(201);
    const list = await (await fetch(`${s.url}/v1/skills`)).json();
    expect(list.data.map((x: { name: string }) => x.name).sort()).toEqual(['csv-tools', 'pdf-tools']);
    expect(list.data[0]).not.toHaveProperty('dir');
    const found = await (
      await fetch(`${s.url}/v1/skills/search?q=${encodeURIComponent('tables in a PDF')}&top=2`)
    ).json();
    expect(found.data[0].name).toBe('pdf-tools');
    expect(found.data[0].score).toBeGreaterThan(found.data[1]?.score ?? -1);
    // By default a skill that shares nothing with the query is left out; threshold=-1 lists it with its score.
    expect(
      (await (await fetch(`${s.url}/v1/skills/search?q=${encodeURIComponent('bake sourdough bread')}`)).json()).data,
    ).toEqual([]);
    expect(
      (
        await (
          await fetch(`${s.url}/v1/skills/search?q=${encodeURIComponent('bake sourdough bread')}&threshold=-1`)
        ).json()
      ).data,
    ).toHaveLength(2);
    const patched = await fetch(`${s.url}/v1/skills/pdf-tools`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ description: 'Read PDF forms.' }),
    });
    expect(patched.status).toBe(200);
    const patchedBody = await patched.json();
    expect(patchedBody.skill.description).toBe('Read PDF forms.');
    // The skill's files as they are now (the SKILL.md grew by the new description's length difference).
    expect(patchedBody.files).toBe(installed.files);
    expect(patchedBody.bytes).toBe(
      installed.bytes + 'Read PDF forms.'.length - 'Extract text and tables from PDF files.'.length,
    );
    const del = await fetch(`${s.url}/v1/skills/csv-tools`, { method: 'DELETE' });
    expect(await del.json()).toMatchObject({ deleted: true, skill: { name: 'csv-tools' } });
    expect((await (await fetch(`${s.url}/v1/skills`)).json()).data.map((x: { name: string }) => x.name)).toEqual([
      'pdf-tools',
    ]);
  });

  it('refuses bad uploads and unknown skills with the right status', async () => {
    const s = await skillsServer({ maxUploadBytes: 4096, maxBodyBytes: 1000 });
    expect((await upload(s, zip('a-skill', 'One.'))).status).toBe(201);
    const again = await upload(s, zip('a-skill', 'Two.'));
    expect(again.status).toBe(409);
    const exists = (await again.json()).error;
    expect(exists.code).toBe('skill_exists');
    expect(exists.message).toMatch(/already installed .*; POST it with \?replace=true to replace it$/);
    expect((await upload(s, zip('a-skill', 'Two.'), '?replace=true')).status).toBe(200);
    const evil = await upload(
      s,
      new Blob([
        new Uint8Array(
          makeZip([
            { name: 'SKILL.md', data: skillMd('evil', 'Evil.') },
            { name: '../escape.txt', data: 'x' },
          ]),
        ),
      ]),
    );
    expect(evil.status).toBe(400);
    expect((await evil.json()).error).toMatchObject({ code: 'invalid_skill_zip', param: 'file' });
    // A SKILL.md whose frontmatter is an alias bomb: a bad skill (400), not a server error.
    const bomb = await upload(
      s,
      new Blob([
        new Uint8Array(
          makeZip([{ name: 'SKILL.md', data: `---\nname: bomb\ndescription: x\n${yamlBomb('l', 6)}---\n` }]),
        ),
      ]),
    );
    expect(bomb.status).toBe(400);
    expect((await bomb.json()).error).toMatchObject({
      code: 'invalid_skill',
      message: expect.stringMatching(
        /SKILL\.md frontmatter is not valid YAML: line 5, column 9: YAML aliases expand to too much data/,
      ),
    });
    const big = await upload(s, new Blob([new Uint8Array(10_000)]));
    expect(big.status).toBe(413);
    const noFile = await fetch(`${s.url}/v1/skills`, { method: 'POST', body: new FormData() });
    expect(noFile.status).toBe(400);
    const json = await fetch(`${s.url}/v1/skills`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect((await json.json()).error.param).toBe('file');
    expect((await fetch(`${s.url}/v1/skills/nope`, { method: 'DELETE' })).status).toBe(404);
    const patch = await fetch(`${s.url}/v1/skills/a-skill`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ description: '' }),
    });
    expect(patch.status).toBe(400);
    expect((await patch.json()).error.param).toBe('description');
    const longPatch = await fetch(`${s.url}/v1/skills/a-skill`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ description: 'x'.repeat(2000) }),
    });
    expect(longPatch.status).toBe(413);
    expect((await longPatch.json()).error.code).toBe('request_too_large');
    expect((await fetch(`${s.url}/v1/skills/search`)).status).toBe(400);
  });

  it('answers 404 skills_disabled when the server has no skills root', async () => {
    const s = await server();
    const res = await fetch(`${s.url}/v1/skills`);
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('skills_disabled');
  });
});
