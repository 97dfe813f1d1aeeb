import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startMcpHttpServer } from '../../src/server/mcp-http-server.js';
import { tempDir } from '../helpers/kernel-fixtures.js';
import { echo, scriptedEngine, serversClosedAfterEach } from './serve-fixtures.js';

const server = serversClosedAfterEach();
const sockets: Socket[] = [];
const timers: NodeJS.Timeout[] = [];
afterEach(() => {
  for (const t of timers.splice(0)) clearInterval(t);
  for (const s of sockets.splice(0)) s.destroy();
});

/** How a slow client's connection ended: after how many ms, and what the server wrote before closing it. */
interface Ended {
  ms: number;
  reply: string;
}

/**
 * A slowloris client: sends `head` (never a whole request), then `drip` every 100 ms forever; resolves when the
 * server closes the connection.
 */
function slowClient(url: string, head: string, drip: string): Promise<Ended> {
  const { hostname, port } = new URL(url);
  const start = Date.now();
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(head);
      timers.push(setInterval(() => socket.writable && socket.write(drip), 100));
    });
    sockets.push(socket);
    let reply = '';
    socket.setEncoding('utf8').on('data', (d: string) => (reply += d));
    socket.on('error', () => {}); // a reset is one way the server ends it; 'close' follows
    socket.on('close', () => resolve({ ms: Date.now() - start, reply }));
  });
}

describe('slow clients cannot hold the server', () => {
  it(
    'headers sent a byte at a time: past maxConnections dropped at once, the rest cut at ' +
      'headersTimeout; then it serves again',
    async () => {
      const s = await server({ maxConnections: 4, headersTimeoutMs: 500, requestTimeoutMs: 1000 });
      const host = new URL(s.url).host;
      const ended = await Promise.all(
        Array.from({ length: 10 }, () =>
          slowClient(s.url, `GET /v1/models HTTP/1.1\r\nHost: ${host}\r\n`, 'X-Slow: 1\r\n'),
        ),
      );
      const dropped = ended.filter((e) => e.reply === '');
      const timedOut = ended.filter((e) => e.reply.startsWith('HTTP/1.1 408'));
      expect(dropped.length).toBeGreaterThanOrEqual(6);
      expect(timedOut.length + dropped.length).toBe(10);
      // bounded: the timeout plus the 1 s check interval at most, although the clients never stop sending
      expect(Math.max(...ended.map((e) => e.ms))).toBeLessThan(3000);
      const res = await fetch(`${s.url}/v1/models`);
      expect(res.status).toBe(200);
    },
    20_000,
  );

  it('a body sent a byte at a time is cut at requestTimeout (408), and starts no run', async () => {
    const s = await server({ headersTimeoutMs: 500, requestTimeoutMs: 1000 });
    const host = new URL(s.url).host;
    const head =
      `POST /v1/chat/completions HTTP/1.1\r\nHost: ${host}\r\nContent-Type: ` +
      `application/json\r\nContent-Length: 100000\r\n\r\n{"model":"echo",`;
    const ended = await slowClient(s.url, head, ' ');
    expect(ended.ms).toBeGreaterThanOrEqual(900);
    expect(ended.ms).toBeLessThan(3500);
    expect(ended.reply).toMatch(/^HTTP\/1\.1 408/);
    expect(s.runs.active).toBe(0);
  }, 20_000);

  it('qitos mcp serve --http applies the same limits', async () => {
    const traceDir = join(await tempDir('qitos-mcp-slow-'), 'traces');
    const mcp = await startMcpHttpServer({
      agents: [{ id: 'echo', engine: scriptedEngine(traceDir, echo) }],
      port: 0,
      maxConnections: 2,
      headersTimeoutMs: 500,
    });
    try {
      const host = new URL(mcp.url).host;
      const ended = await Promise.all(
        Array.from({ length: 5 }, () =>
          slowClient(mcp.url, `POST /mcp HTTP/1.1\r\nHost: ${host}\r\n`, 'X-Slow: 1\r\n'),
        ),
      );
      expect(ended.filter((e) => e.reply === '').length).toBeGreaterThanOrEqual(3);
      expect(Math.max(...ended.map((e) => e.ms))).toBeLessThan(3000);
    } finally {
      await mcp.close();
    }
  }, 20_000);
});
