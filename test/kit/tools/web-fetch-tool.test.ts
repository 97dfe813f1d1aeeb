import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nullEnv } from '../../../src/core/index.js';
import { hostAllowed, htmlToText, parseAllowedHost, webFetchTool } from '../../../src/kit/tools/index.js';
import { callTool } from '../../helpers/qitos-env-fixtures.js';

let server: Server;
let base: string;
let port: number;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://x');
    switch (url.pathname) {
      case '/page':
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(`<!doctype html><html><head><title>Test &amp; Page</title><style>body{color:red}</style><script>alert("x")</script></head>
<body><h1>Hello</h1><p>First&nbsp;paragraph with <a href="https://example.org/x">a link</a>.</p><ul><li>one</li><li>two</li></ul>
<pre>  code
    indented</pre><p>caf&eacute; &#8364; &#x41;</p></body></html>`);
        return;
      case '/json':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
        return;
      case '/redirect-local':
        res.writeHead(302, { location: '/page' });
        res.end();
        return;
      case '/redirect-away':
        res.writeHead(301, { location: 'http://evil.example.com/steal' });
        res.end();
        return;
      case '/redirect-to':
        // Redirects to the URL given in ?to= (another spelling of this host, a localhost alias, ...).
        res.writeHead(302, { location: url.searchParams.get('to') ?? '/' });
        res.end();
        return;
      case '/redirect-file':
        res.writeHead(302, { location: 'file:///etc/passwd' });
        res.end();
        return;
      case '/loop':
        res.writeHead(302, { location: '/loop' });
        res.end();
        return;
      case '/big':
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '200000' });
        res.end('x'.repeat(200_000));
        return;
      case '/stream-big': {
        // No content-length: the cap must hold while streaming.
        res.writeHead(200, { 'content-type': 'text/plain', 'transfer-encoding': 'chunked' });
        let sent = 0;
        const push = () => {
          while (sent < 2_000_000) {
            sent += 16_384;
            if (!res.write('y'.repeat(16_384))) return res.once('drain', push);
          }
          res.end();
        };
        push();
        res.on('error', () => undefined); // the client hangs up once over its cap
        return;
      }
      case '/slow':
        setTimeout(() => {
          if (!res.destroyed) {
            res.writeHead(200, { 'content-type': 'text/plain' });
            res.end('late');
          }
        }, 2000).unref();
        return;
      case '/binary':
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
        return;
      case '/missing':
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('no such page');
        return;
      case '/long':
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(Array.from({ length: 3000 }, (_, i) => `row ${i}`).join('\n'));
        return;
      default:
        res.writeHead(500);
        res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const tool = (extra: Partial<Parameters<typeof webFetchTool>[0]> = {}) =>
  webFetchTool({ allowHosts: ['127.0.0.1'], timeoutMs: 1000, ...extra });

describe('web_fetch tool (local HTTP server)', () => {
  it('fetches an allowed page and turns its HTML into readable text', async () => {
    const r = await callTool(tool(), { url: `${base}/page` }, nullEnv);
    expect(r.status).toBe('success');
    expect(r.seen).toMatch(
      new RegExp(`^URL: ${base}/page\\nStatus: 200; type: text/html; \\d+ B\\nTitle: Test & Page\\n\\n# Hello\\n`),
    );
    expect(r.seen).toContain('First paragraph with a link (https://example.org/x).');
    expect(r.seen).toContain('- one\n- two');
    expect(r.seen).toContain('  code\n    indented');
    expect(r.seen).toContain('café € A');
    expect(r.seen).not.toMatch(/alert|color:red|<p>/);
    expect(r.state.status === 'completed' && r.state.title).toBe('Test & Page');
    const raw = await callTool(tool(), { url: `${base}/page`, format: 'raw' }, nullEnv);
    expect(raw.seen).toContain('<h1>Hello</h1>');
    expect((await callTool(tool(), { url: `${base}/json` }, nullEnv)).seen).toMatch(/\n\n\{"ok":true\}$/);
  });

  it('follows redirects inside the allow-list and re-checks every hop', async () => {
    const ok = await callTool(tool(), { url: `${base}/redirect-local` }, nullEnv);
    expect(ok.seen).toMatch(new RegExp(`^URL: ${base}/page \\(after 1 redirect\\)`));
    const away = await callTool(tool(), { url: `${base}/redirect-away` }, nullEnv);
    expect(away.status).toBe('error');
    expect(away.seen).toBe(
      `host evil.example.com is not in the allowed hosts (redirected from ${base}/redirect-away). Allowed: 127.0.0.1.`,
    );
    const file = await callTool(tool(), { url: `${base}/redirect-file` }, nullEnv);
    expect(file.seen).toMatch(/^URL scheme "file" is not allowed \(redirected from/);
    const loop = await callTool(tool({ maxRedirects: 3 }), { url: `${base}/loop` }, nullEnv);
    expect(loop.seen).toBe(`too many redirects (more than 3) starting from ${base}/loop`);
  });

  it('refuses other schemes, hosts not allowed, and any host when none are configured, without a request', async () => {
    const before = hits.length;
    const cases: Array<[ReturnType<typeof webFetchTool>, string, RegExp]> = [
      [
        tool(),
        'file:///etc/passwd',
        /^URL scheme "file" is not allowed: web_fetch only fetches http and https URLs\.$/,
      ],
      [tool(), 'ftp://127.0.0.1/x', /scheme "ftp" is not allowed/],
      [tool(), 'javascript:alert(1)', /scheme "javascript" is not allowed/],
      [
        tool(),
        `http://localhost:${port}/page`,
        /^host localhost:\d+ is not in the allowed hosts\. Allowed: 127\.0\.0\.1\.$/,
      ],
      [tool(), 'not a url', /is not a valid URL/],
      [tool(), `http://user:pw@127.0.0.1:${port}/page`, /carries credentials/],
      [
        webFetchTool({ allowHosts: [] }),
        `${base}/page`,
        /^web_fetch has no allowed hosts configured, so 127\.0\.0\.1:\d+ cannot be fetched/,
      ],
      [webFetchTool({ allowHosts: ['127.0.0.1:1'] }), `${base}/page`, /is not in the allowed hosts/],
    ];
    for (const [t, url, msg] of cases) {
      const r = await callTool(t, { url }, nullEnv);
      expect(r.status, url).toBe('error');
      expect(r.seen, url).toMatch(msg);
    }
    expect(hits.length).toBe(before);
  });

  it('enforces size and time limits', async () => {
    const big = await callTool(tool({ maxBytes: 100_000 }), { url: `${base}/big` }, nullEnv);
    expect(big.seen).toBe(`response from ${base}/big is 195.3 KB, over the 97.7 KB limit.`);
    const streamed = await callTool(tool({ maxBytes: 100_000 }), { url: `${base}/stream-big` }, nullEnv);
    expect(streamed.seen).toBe(
      `response from ${base}/stream-big is over the 97.7 KB limit; it was not read to the end.`,
    );
    const t0 = Date.now();
    const slow = await callTool(tool({ timeoutMs: 200 }), { url: `${base}/slow` }, nullEnv);
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(slow.seen).toBe(`fetching ${base}/slow timed out after 200 ms.`);
  });

  it('reports HTTP errors and binary content clearly; cuts long pages and keeps them whole for the trace', async () => {
    expect((await callTool(tool(), { url: `${base}/missing` }, nullEnv)).seen).toBe(
      `HTTP 404 Not Found from ${base}/missing. Body starts: no such page`,
    );
    expect((await callTool(tool(), { url: `${base}/binary` }, nullEnv)).seen).toMatch(
      /returned image\/png \(8 B\), which web_fetch cannot show as text/,
    );
    const long = await callTool(tool({ limits: { maxLines: 100 } }), { url: `${base}/long` }, nullEnv);
    expect(long.seen).toMatch(/\[output truncated: showing 100 of 3003 lines/);
    expect(long.output as string).toContain('row 2999');
  });
});

describe('web_fetch and other names of a host (IP spellings, localhost aliases)', () => {
  const aliases = (p: number) => [
    `http://localhost:${p}/page`,
    `http://LOCALHOST.:${p}/page`,
    `http://a.localhost:${p}/page`,
    `http://[::1]:${p}/page`,
    `http://[::ffff:127.0.0.1]:${p}/page`,
    `http://0.0.0.0:${p}/page`,
    `http://0:${p}/page`,
  ];

  it('an allowed address does not let its names or other addresses of the machine in, directly or by redirect', async () => {
    const before = hits.length;
    for (const url of aliases(port)) {
      const r = await callTool(tool(), { url }, nullEnv);
      expect(r.status, url).toBe('error');
      expect(r.seen, url).toMatch(/^host \S+ is not in the allowed hosts\. Allowed: 127\.0\.0\.1\.$/);
    }
    expect(hits.length).toBe(before);
    for (const to of aliases(port)) {
      const r = await callTool(tool(), { url: `${base}/redirect-to?to=${encodeURIComponent(to)}` }, nullEnv);
      expect(r.status, to).toBe('error');
      expect(r.seen, to).toMatch(
        /is not in the allowed hosts \(redirected from http:\/\/127\.0\.0\.1:\d+\/redirect-to/,
      );
    }
    expect(hits.length).toBe(before + aliases(port).length); // only the redirecting page was requested
  });

  it('an allowed name does not let the address it resolves to in', async () => {
    const byName = webFetchTool({ allowHosts: ['localhost'], timeoutMs: 1000 });
    for (const url of [`${base}/page`, `http://2130706433:${port}/page`, `http://[::1]:${port}/page`]) {
      const r = await callTool(byName, { url }, nullEnv);
      expect(r.status, url).toBe('error');
      expect(r.seen, url).toMatch(/is not in the allowed hosts\. Allowed: localhost\.$/);
    }
  });

  it('other spellings of the allowed address are that address (the URL parser normalizes them) and are fetched', async () => {
    for (const host of ['2130706433', '0x7f.1', '127.1', '0177.0.0.1']) {
      const r = await callTool(tool(), { url: `http://${host}:${port}/json` }, nullEnv);
      expect(r.status, host).toBe('success');
      expect(r.seen, host).toMatch(new RegExp(`^URL: http://127\\.0\\.0\\.1:${port}/json`));
    }
    // and an entry written in another spelling stands for the address too
    expect(
      (await callTool(webFetchTool({ allowHosts: ['127.1'], timeoutMs: 1000 }), { url: `${base}/json` }, nullEnv))
        .status,
    ).toBe('success');
  });
});

describe('parseAllowedHost', () => {
  it('normalizes entries like the URL parser normalizes hosts', () => {
    expect(parseAllowedHost(' Example.COM ')).toEqual({ host: 'example.com', wildcard: false });
    expect(parseAllowedHost('127.1')).toEqual({ host: '127.0.0.1', wildcard: false });
    expect(parseAllowedHost('[::0:1]:8080')).toEqual({ host: '[::1]', port: '8080', wildcard: false });
    expect(parseAllowedHost('Bücher.de')).toEqual({ host: 'xn--bcher-kva.de', wildcard: false });
    expect(parseAllowedHost('*.example.com:443')).toEqual({ host: 'example.com', port: '443', wildcard: true });
    expect(hostAllowed(new URL('http://xn--bcher-kva.de/'), ['bücher.de'])).toBe(true);
    expect(hostAllowed(new URL('http://example.com:8080/'), ['example.com:80'])).toBe(false);
  });

  it('refuses entries that are not hosts, naming the entry and what is wrong, when the tool is made', () => {
    const cases: Array<[string, RegExp]> = [
      ['https://example.com', /"https:\/\/example\.com" is not a host name: .*not a URL/],
      ['example.com/path', /is not a host name/],
      ['user@example.com', /is not a host name/],
      ['', /"" is empty/],
      ['*', /only "\*\.domain" wildcards/],
      ['a*.example.com', /only "\*\.domain" wildcards/],
      ['*.0.0.1', /wildcard over an IP address/], // would otherwise match 127.0.0.1
      ['*.[::1]', /wildcard over an IP address/],
      ['::1', /IPv6 address in brackets/],
      ['example.com:0', /port 0, outside 1-65535/],
      ['example.com:70000', /port 70000, outside 1-65535/],
      ['exa%mple.com', /not a valid host name/],
    ];
    for (const [entry, msg] of cases) {
      expect(() => parseAllowedHost(entry), entry).toThrow(msg);
      expect(() => webFetchTool({ allowHosts: ['127.0.0.1', entry] }), entry).toThrow(msg);
    }
    expect(hostAllowed(new URL('http://127.0.0.1/'), ['*.example.com'])).toBe(false);
  });
});

describe('hostAllowed', () => {
  it('matches exact hosts, host:port and *.domain (not the bare domain), case-insensitively', () => {
    const u = (s: string) => new URL(s);
    expect(hostAllowed(u('https://Example.com/x'), ['example.com'])).toBe(true);
    expect(hostAllowed(u('https://example.com.evil.net/'), ['example.com'])).toBe(false);
    expect(hostAllowed(u('https://api.example.com/'), ['*.example.com'])).toBe(true);
    expect(hostAllowed(u('https://example.com/'), ['*.example.com'])).toBe(false);
    expect(hostAllowed(u('https://evilexample.com/'), ['*.example.com'])).toBe(false);
    expect(hostAllowed(u('http://127.0.0.1:8080/'), ['127.0.0.1:8080'])).toBe(true);
    expect(hostAllowed(u('http://127.0.0.1:8081/'), ['127.0.0.1:8080'])).toBe(false);
    expect(hostAllowed(u('http://127.1/'), ['127.0.0.1'])).toBe(true); // the URL parser normalizes IPv4 forms
    expect(hostAllowed(u('http://[::1]:3000/'), ['[::1]'])).toBe(true);
    expect(hostAllowed(u('https://example.com/'), ['example.com:443'])).toBe(true);
  });
});

describe('htmlToText', () => {
  it('drops scripts and comments, keeps structure and decodes entities', () => {
    expect(htmlToText('<p>a<!-- hidden --> &lt;b&gt;</p><script>x()</script><br>c')).toBe('a <b>\n\nc');
    expect(htmlToText('<h2>T</h2><table><tr><td>1</td><td>2</td></tr></table>')).toBe('## T\n\n1 2');
  });
});

describe('web_fetch: DNS is resolved once, checked, and pinned', () => {
  /** A resolver that answers from a script, one answer per call (the last one repeats), and counts calls. */
  const scripted = (answers: string[][]) => {
    const calls: string[] = [];
    const resolve = async (host: string) => {
      calls.push(host);
      const a = answers[Math.min(calls.length - 1, answers.length - 1)];
      return a.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
    };
    return { resolve, calls };
  };

  it('an allowed name that resolves to a loopback address is refused (the address must be listed itself)', async () => {
    const before = hits.length;
    const r = await callTool(
      webFetchTool({ allowHosts: [`localhost:${port}`], timeoutMs: 2000 }),
      { url: `http://localhost:${port}/page` },
      nullEnv,
    );
    expect(r.status).toBe('error');
    expect(r.seen).toMatch(
      /^host localhost resolves to (127\.0\.0\.1|::1) \(loopback\).*, not a public address\. web_fetch connects to a non-public address only when allowHosts lists that address itself/,
    );
    expect(hits.length).toBe(before);
    // Listing the address lets the name in.
    const ok = await callTool(
      webFetchTool({ allowHosts: ['localhost', '127.0.0.1', '[::1]'], timeoutMs: 2000 }),
      { url: `http://localhost:${port}/json` },
      nullEnv,
    );
    expect(ok.status, ok.seen).toBe('success');
  });

  it('connects to the address it checked: a resolver that changes its answer later is asked once per connection', async () => {
    const { resolve, calls } = scripted([['127.0.0.1'], ['10.9.9.9']]);
    const r = await callTool(
      webFetchTool({ allowHosts: ['pinned.test', '127.0.0.1'], timeoutMs: 2000, resolve }),
      { url: `http://pinned.test:${port}/json` },
      nullEnv,
    );
    expect(r.status, r.seen).toBe('success');
    expect(r.seen).toMatch(/^URL: http:\/\/pinned\.test:\d+\/json\n/);
    expect(calls).toEqual(['pinned.test']);
  });

  it('a name whose DNS answer is this machine never reaches it, after a single lookup (no second answer to rebind)', async () => {
    const before = hits.length;
    const { resolve, calls } = scripted([['127.0.0.1']]);
    const r = await callTool(
      webFetchTool({ allowHosts: ['rebind.test'], timeoutMs: 2000, resolve }),
      { url: `http://rebind.test:${port}/page` },
      nullEnv,
    );
    expect(r.status).toBe('error');
    expect(r.seen).toMatch(/^host rebind\.test resolves to 127\.0\.0\.1 \(loopback\), not a public address/);
    expect(calls).toEqual(['rebind.test']);
    expect(hits.length).toBe(before);
  });

  it('uses only the answers that pass, and checks the name of every redirect hop', async () => {
    const mixed = scripted([['10.1.2.3', '127.0.0.1']]);
    const r = await callTool(
      webFetchTool({ allowHosts: ['mixed.test', '127.0.0.1'], timeoutMs: 2000, resolve: mixed.resolve }),
      { url: `http://mixed.test:${port}/json` },
      nullEnv,
    );
    expect(r.status, r.seen).toBe('success');
    const before = hits.length;
    const evil = scripted([['10.0.0.7']]);
    const hop = await callTool(
      webFetchTool({ allowHosts: ['127.0.0.1', 'evil.test'], timeoutMs: 2000, resolve: evil.resolve }),
      { url: `${base}/redirect-to?to=${encodeURIComponent(`http://evil.test:${port}/page`)}` },
      nullEnv,
    );
    expect(hop.status).toBe('error');
    expect(hop.seen).toMatch(/^host evil\.test resolves to 10\.0\.0\.7 \(private\), not a public address/);
    expect(hits.length).toBe(before + 1); // only the redirecting page
  });
});

describe('web_fetch timeout', () => {
  it('fires even when the garbage collector runs while the fetch waits (the timer is kept referenced)', async () => {
    const v8 = await import('node:v8');
    const vm = await import('node:vm');
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const silent = createServer(() => undefined); // accepts and never answers
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const silentPort = (silent.address() as AddressInfo).port;
    const collector = setInterval(gc, 20);
    try {
      const t0 = Date.now();
      const r = await callTool(
        webFetchTool({ allowHosts: ['127.0.0.1'], timeoutMs: 300 }),
        { url: `http://127.0.0.1:${silentPort}/x` },
        nullEnv,
        { timeoutMs: 10_000 },
      );
      expect(r.status).toBe('error');
      expect(r.seen).toBe(`fetching http://127.0.0.1:${silentPort}/x timed out after 300 ms.`);
      expect(Date.now() - t0).toBeLessThan(5000);
    } finally {
      clearInterval(collector);
      silent.closeAllConnections();
      silent.close();
    }
  });
});
