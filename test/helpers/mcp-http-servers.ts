import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { buildFixtureServer } from '../fixtures/mcp/fixture-server.js';

/** An MCP server of the SDK's own HTTP transports, in this process, on 127.0.0.1. */
export interface HttpMcpServer {
  url: string;
  /** Authorization headers of every request, in order. */
  authorizations: string[];
  /** How many sessions were opened. */
  sessions: () => number;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  path: string,
  port = 0,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    handler(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  return new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}` }),
    ),
  );
}

function closer(server: Server, onClose: () => Promise<void>): () => Promise<void> {
  return async () => {
    await onClose();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  };
}

/** The fixture server over streamable HTTP (stateful sessions) at `/mcp`; `port` 0 picks a free one. */
export async function startStreamableServer(port = 0): Promise<HttpMcpServer> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const authorizations: string[] = [];
  let opened = 0;
  const { server, url } = await listen(
    async (req, res) => {
      authorizations.push(req.headers.authorization ?? '');
      const parsed = req.method === 'POST' ? await body(req) : undefined;
      const sid = req.headers['mcp-session-id'] as string | undefined;
      let transport = sid ? transports.get(sid) : undefined;
      if (!transport) {
        if (req.method !== 'POST' || !isInitializeRequest(parsed)) {
          res
            .writeHead(sid ? 404 : 400, { 'content-type': 'application/json' })
            .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'no such session' }, id: null }));
          return;
        }
        const t: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void transports.set(id, t),
        });
        opened++;
        await buildFixtureServer().connect(t);
        transport = t;
      }
      await transport.handleRequest(req, res, parsed);
    },
    '/mcp',
    port,
  );
  return {
    url,
    authorizations,
    sessions: () => opened,
    close: closer(server, async () => void (await Promise.all([...transports.values()].map((t) => t.close())))),
  };
}

/** The fixture server over the older HTTP+SSE transport only: GET `/sse`, POST `/messages`; `/mcp`-style POSTs get 405. */
export async function startSseOnlyServer(): Promise<HttpMcpServer> {
  const transports = new Map<string, SSEServerTransport>();
  const authorizations: string[] = [];
  const { server, url } = await listen(async (req, res) => {
    authorizations.push(req.headers.authorization ?? '');
    const u = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && u.pathname === '/sse') {
      const t = new SSEServerTransport('/messages', res);
      transports.set(t.sessionId, t);
      await buildFixtureServer().connect(t);
      return;
    }
    if (req.method === 'POST' && u.pathname === '/messages') {
      const t = transports.get(u.searchParams.get('sessionId') ?? '');
      if (!t) return void res.writeHead(404).end('no such session');
      await t.handlePostMessage(req, res, await body(req));
      return;
    }
    res.writeHead(405).end('method not allowed');
  }, '/sse');
  return {
    url,
    authorizations,
    sessions: () => transports.size,
    close: closer(server, async () => void (await Promise.all([...transports.values()].map((t) => t.close())))),
  };
}
