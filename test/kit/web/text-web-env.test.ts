import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/index.js';
import { MemoryEnv } from '../../../src/envs/index.js';
import { ScriptedModel } from '../../../src/models/index.js';
import { jsonParser } from '../../../src/kit/parsers/index.js';
import { readTrace } from '../../../src/trace/index.js';
import { TextWebEnv, pageText, textWebTools, webFollowTool, webOpenTool } from '../../../src/kit/web/index.js';
import { writeTool } from '../../../src/kit/tools/index.js';
import { ModelPathAgent, tempDir } from '../../helpers/kernel-fixtures.js';
import { callTool } from '../../helpers/qitos-env-fixtures.js';

let server: Server;
let base: string;
let host: string;
const hits: string[] = [];
const longPage = Array.from(
  { length: 100 },
  (_, i) => `<p>Paragraph ${i + 1}${i === 57 ? ' holds the needle' : ''}${i === 83 ? ' and another Needle' : ''}.</p>`,
).join('\n');

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://x');
    const html = (body: string, status = 200) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
      res.end(body);
    };
    switch (url.pathname) {
      case '/':
        return html(`<!doctype html><html><head><title>Home &amp; index</title><script>document.write('<a href="/phantom">x</a>')</script></head><body>
<nav><a href="/docs/intro">Intro</a> | <a href="docs/api?x=1&amp;y=2">API</a> | <a href="#top">Top</a> | <a href="mailto:a@b.c">Mail</a></nav>
<h1>Welcome</h1><p>Read the <a href="/docs/intro">introduction</a> first; cited work [3] is not a link.</p>
<p>Off-site: <a href="http://evil.example.com/steal">elsewhere</a>.</p>
<p><a href="/long">The long page</a> and <a href="/redirect-away">a redirect</a>.</p></body></html>`);
      case '/docs/intro':
        return html(
          '<html><head><title>Intro</title><base href="/docs/sub/"></head><body><p>Intro text. ' +
            'Next: <a href="next">next page</a>, <a href="/">home</a>.</p></body></html>',
        );
      case '/docs/api':
        return html(`<p>API ${url.searchParams.get('x')},${url.searchParams.get('y')}</p>`);
      case '/docs/sub/next':
        return html('<p>The next page.</p>');
      case '/long':
        return html(`<html><head><title>Long</title></head><body>${longPage}</body></html>`);
      case '/plain':
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('line one\nline two [1]\n');
      case '/redirect-away':
        res.writeHead(302, { location: 'http://evil.example.com/steal' });
        return res.end();
      case '/missing':
        return html('<p>gone</p>', 404);
      default:
        return html('<p>not here</p>', 404);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  host = `127.0.0.1:${port}`;
  base = `http://${host}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const make = (extra: Partial<ConstructorParameters<typeof TextWebEnv>[0]> = {}) =>
  new TextWebEnv({ allowHosts: [host], pageLines: 10, ...extra });

describe('TextWebEnv', () => {
  it('opens a page as numbered lines with numbered links, resolving them; follows, scrolls, finds and goes back', async () => {
    const env = make();
    const b = env.browser;
    const signal = new AbortController().signal;
    const home = await b.open(`${base}/`, signal);
    expect(home.title).toBe('Home & index');
    expect(home.lines[0]).toBe('Intro [1] | API [2] | Top | Mail');
    expect(home.lines.join('\n')).toContain('Read the introduction [1] first; cited work [3] is not a link.');
    expect(home.links.map((l) => [l.n, l.url])).toEqual([
      [1, `${base}/docs/intro`],
      [2, `${base}/docs/api?x=1&y=2`],
      [3, 'http://evil.example.com/steal'],
      [4, `${base}/long`],
      [5, `${base}/redirect-away`],
    ]);
    expect(env.observe()).toEqual({ page: { url: `${base}/`, title: 'Home & index', line: 1, lines: home.total } });

    const api = await b.follow(2, signal);
    expect(api.lines).toEqual(['API 1,2']);
    const intro = await b.back();
    expect(intro.url).toBe(`${base}/`);
    const next = await b.follow(1, signal).then(() => b.follow(1, signal)); // <base href> applies
    expect(next).toMatchObject({ url: `${base}/docs/sub/next`, lines: ['The next page.'] });

    const long = await b.open(`${base}/long`, signal);
    expect(long).toMatchObject({ from: 1, to: 10, total: 100 });
    expect(b.scroll({})).toMatchObject({ from: 11, to: 20 });
    expect(b.scroll({ direction: 'up', lines: 5 })).toMatchObject({ from: 6, to: 15 });
    expect(b.scroll({ toLine: 95 })).toMatchObject({ from: 91, to: 100 }); // never past the end
    const found = b.find('needle');
    expect(found.match).toEqual({ line: 58, count: 2, text: 'needle' });
    expect(found.from).toBe(56); // two lines of context above the match
    expect(b.find('needle').match?.line).toBe(84);
    expect(b.find('needle').match?.line).toBe(58); // wraps
    expect(() => b.find('absent words')).toThrow(`"absent words" is not on this page (${base}/long).`);
    expect(() => b.follow(1, signal)).rejects.toThrow('this page has no link [1]: it has no links.');
  });

  it('keeps to the allow-list like web_fetch: off-site links and redirects are refused as tool errors', async () => {
    const env = make();
    expect((await callTool(webOpenTool(), { url: `${base}/` }, env)).status).toBe('success');
    const off = await callTool(webFollowTool(), { link: 3 }, env);
    expect(off.status).toBe('error');
    expect(off.seen).toBe(`host evil.example.com is not in the allowed hosts. Allowed: ${host}.`);
    const redirect = await callTool(webFollowTool(), { link: 5 }, env);
    expect(redirect.seen).toBe(
      `host evil.example.com is not in the allowed hosts (redirected from ${base}/redirect-away). Allowed: ${host}.`,
    );
    expect(hits.filter((h) => h.includes('steal'))).toEqual([]);
    expect((await callTool(webOpenTool(), { url: 'file:///etc/passwd' }, env)).seen).toMatch(
      /scheme "file" is not allowed/,
    );
    expect((await callTool(webOpenTool(), { url: `${base}/missing` }, env)).seen).toMatch(/^HTTP 404 Not Found from/);
    const none = new TextWebEnv({ allowHosts: [] });
    expect((await callTool(webOpenTool(), { url: `${base}/` }, none)).seen).toMatch(/has no allowed hosts configured/);
    expect(() => new TextWebEnv({ allowHosts: ['http://x.com/'] })).toThrow(/is not a host name/);
  });

  it('renders views for the model, with the links in view and where to scroll', async () => {
    const env = make({ pageLines: 3 });
    const r = await callTool(webOpenTool(), { url: `${base}/` }, env);
    expect(r.seen).toBe(
      [
        `URL: ${base}/`,
        'Title: Home & index',
        'Lines 1-3 of 5 (scroll down for more).',
        '',
        '1  Intro [1] | API [2] | Top | Mail',
        '2  # Welcome',
        '3  Read the introduction [1] first; cited work [3] is not a link.',
        '',
        'Links in view (follow one with its number):',
        `[1] Intro -> ${base}/docs/intro`,
        `[2] API -> ${base}/docs/api?x=1&y=2`,
      ].join('\n'),
    );
    const tools = Object.fromEntries(textWebTools().map((t) => [t.id, t]));
    expect((await callTool(tools.web_scroll, { toLine: 1, direction: 'down' }, env)).seen).toBe(
      'give either toLine, or direction and lines, not both',
    );
    expect((await callTool(tools.web_find, { text: 'redirect' }, env)).seen).toMatch(
      /Found "redirect" on line 5 \(1 matching line; find it again for the next\)\./,
    );
    expect((await callTool(tools.web_back, {}, env)).seen).toBe('there is no page to go back to.');
    expect((await callTool(webOpenTool(), { url: 'x' }, new MemoryEnv())).seen).toBe(
      'tool "web_open" needs the "web" op group (a TextWebEnv), and env "memory" has none',
    );
    const plain = await callTool(webOpenTool(), { url: `${base}/plain` }, env);
    expect(plain.seen).toContain('2  line two [1]');
    expect(plain.seen).not.toContain('Links in view');
  });

  it('runs in the engine over an inner workspace: browse, then write a finding; each run starts with no page', async () => {
    const inner = new MemoryEnv();
    const env = make({ inner });
    const dir = await tempDir();
    const model = new ScriptedModel([
      `{"action": {"name": "web_open", "args": {"url": "${base}/long"}}}`,
      '{"action": {"name": "web_find", "args": {"text": "needle"}}}',
      '{"action": {"name": "write", "args": {"path": "notes.md", "content": "needle on line 58\\n"}}}',
      '{"final_answer": "58"}',
    ]);
    const agent = new ModelPathAgent({ model, parser: jsonParser(), tools: [...textWebTools(), writeTool()] });
    const r = await new Engine({ agent, env, trace: { dir } }).run('where is the needle?');
    expect(r.stopReason, r.stopMessage).toBe('final');
    expect(inner.snapshot()).toEqual({ 'notes.md': 'needle on line 58\n' });
    const t = await readTrace(r.traceDir!);
    expect(t.manifest.env.name).toBe('text_web+memory');
    // The env's observation is where the browser is: nothing at step 1, the long page from step 2 on.
    expect(t.steps[0].observation).toEqual({ page: null });
    expect(t.steps[1].observation).toEqual({ page: { url: `${base}/long`, title: 'Long', line: 1, lines: 100 } });
    expect(env.observe().page).toBeNull(); // closed: nothing open for the next run
    expect(t.steps[1].results[0].output).toContain('58  Paragraph 58 holds the needle.');
  });

  it('property: link numbers are exactly the followable anchors, in order, deduplicated; text never gains a link', () => {
    const page = new URL('http://site.test/dir/page');
    const anchor = fc.record({
      href: fc.constantFrom(
        '/a',
        'b',
        '#frag',
        'mailto:x@y',
        'javascript:void(0)',
        'http://other.test/c',
        'https://site.test/dir/page',
        '/a',
        '?q=1',
      ),
      text: fc.string({ unit: fc.constantFrom('x', ' ', '[', ']', '1', '<', '&'), maxLength: 6 }),
    });
    fc.assert(
      fc.property(fc.array(fc.oneof(anchor, fc.string({ maxLength: 10 })), { maxLength: 8 }), (parts) => {
        const html = `<p>${parts.map((p) => (typeof p === 'string' ? p.replace(/[<>&]/g, '') : `<a href="${p.href}">${p.text.replace(/[<>&]/g, '')}</a>`)).join(' ')}</p>`;
        const out = pageText(html, 'text/html', page);
        const expected: string[] = [];
        for (const p of parts) {
          if (typeof p === 'string') continue;
          const u = new URL(p.href, page);
          if (!/^https?:$/.test(u.protocol) || p.href.startsWith('#') || u.href === page.href) continue;
          if (!expected.includes(u.href)) expected.push(u.href);
        }
        expect(out.links.map((l) => l.url)).toEqual(expected);
        expect(out.links.map((l) => l.n)).toEqual(expected.map((_, i) => i + 1));
        expect(out.lineLinks.flat().every((n) => n >= 1 && n <= expected.length)).toBe(true);
        expect(out.lines.join('\n')).not.toMatch(/[\uE000\uE001]/);
      }),
      { numRuns: 300 },
    );
  });
});
