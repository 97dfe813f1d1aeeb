import { afterEach, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../../src/index.js';
import { McpManager } from '../../../src/kit/mcp/index.js';
import { act, nextEvent, until } from '../../helpers/mcp-fixtures.js';
import { startSseOnlyServer, startStreamableServer, type HttpMcpServer } from '../../helpers/mcp-http-servers.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((x) => x.close()));
});
async function track<T extends { close(): Promise<void> }>(x: Promise<T>): Promise<T> {
  const v = await x;
  open.push(v);
  return v;
}

describe("MCP over HTTP (the SDK's own servers on 127.0.0.1)", () => {
  it('speaks streamable HTTP, with headers whose ${VAR} comes from the environment', async () => {
    const srv: HttpMcpServer = await track(startStreamableServer());
    const m = await track(
      McpManager.connect(
        { web: { type: 'http', url: srv.url, headers: { Authorization: 'Bearer ${QITOS_TEST_TOKEN}' } } },
        { env: { QITOS_TEST_TOKEN: 'tok-123' } },
      ),
    );
    expect(m.statuses()[0]).toMatchObject({ state: 'connected', transport: 'streamable-http', resources: true });
    const registry = new ToolRegistry();
    m.attach(registry);
    expect((await act(registry, 'web_add', { a: 2, b: 3 })).output).toBe('5');
    expect((await act(registry, 'read_mcp_resource', { uri: 'mcp://web/fixture://notes.txt' })).output).toBe(
      'the notes say hello',
    );
    const progress = await act(registry, 'web_progress', { steps: 2, every: 20 });
    expect(progress.titles).toContain('progress: step 1 of 2');
    expect(srv.authorizations.length).toBeGreaterThan(2);
    expect(new Set(srv.authorizations)).toEqual(new Set(['Bearer tok-123']));
  });

  it('falls back to HTTP+SSE for a server that rejects the streamable POST', async () => {
    const srv = await track(startSseOnlyServer());
    const m = await track(
      McpManager.connect({ old: { type: 'http', url: srv.url, headers: { Authorization: 'Bearer x' } } }),
    );
    expect(m.statuses()[0]).toMatchObject({ state: 'connected', transport: 'sse' });
    const registry = new ToolRegistry();
    m.attach(registry);
    expect((await act(registry, 'old_echo', { text: 'over sse' })).output).toBe('over sse');
    expect(srv.authorizations.every((a) => a === 'Bearer x')).toBe(true);
    // asked for streamable HTTP only, the same server is a failure that says what it answered
    const strict = await track(McpManager.connect({ old: { type: 'http', url: srv.url, transport: 'streamable' } }));
    expect(strict.statuses()[0]).toMatchObject({
      state: 'failed',
      reason: 'Streamable HTTP error: Error POSTing to endpoint: method not allowed (HTTP 405)',
    });
  });

  it('caps messages over HTTP too, naming the limit', async () => {
    const srv = await track(startStreamableServer());
    const m = await track(McpManager.connect({ web: { type: 'http', url: srv.url, maxMessageBytes: 1024 * 1024 } }));
    const registry = new ToolRegistry();
    m.attach(registry);
    expect((await act(registry, 'web_big', { mb: 0.5 })).status).toBe('success');
    expect((await act(registry, 'web_big', { mb: 2 })).error).toMatch(
      /^MCP server "web" \(http:.*\): tool "big" failed: the server sent a message larger than 1048576 bytes \(the maxMessageBytes limit\)$/,
    );
    expect((await act(registry, 'web_add', { a: 1, b: 1 })).output).toBe('2');
  });

  it('a server that goes away is reported and reconnected once it is back', async () => {
    let srv = await startStreamableServer();
    const port = Number(new URL(srv.url).port);
    const m = await track(
      McpManager.connect({ web: { type: 'http', url: srv.url } }, { reconnect: { delayMs: 100, attempts: 10 } }),
    );
    const registry = new ToolRegistry();
    m.attach(registry);
    await srv.close();
    const down = await act(registry, 'web_add', { a: 1, b: 1 });
    expect(down.error).toMatch(
      /^MCP server "web" .*: tool "add" failed: the server could not be reached \(fetch failed/,
    );
    await until(() => m.statuses()[0].state === 'reconnecting', 5_000, 'the reconnect to start');
    const back = nextEvent(m, (e) => e.type === 'status' && e.state === 'connected');
    srv = await track(startStreamableServer(port));
    await back;
    expect((await act(registry, 'web_add', { a: 1, b: 1 })).output).toBe('2');
    expect(srv.sessions()).toBe(1);
  });

  it('refuses a url that is not http(s)', async () => {
    const m = await track(McpManager.connect({ f: { type: 'http', url: 'file:///etc/passwd' } }));
    expect(m.statuses()[0]).toMatchObject({ state: 'failed', reason: 'the url must be http: or https:, not file:' });
  });
});
