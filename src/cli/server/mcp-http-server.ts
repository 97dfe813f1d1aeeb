// Its declarations name Node's types: the reference lets a consumer whose tsconfig lacks `types: ["node"]` find them.
/// <reference types="node" preserve="true" />
import type { Server } from 'node:http';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Hono } from 'hono';
import { agentMcpServer } from './agent-mcp-server.js';
import { bearer } from './bearer-auth.js';
import { HttpError } from './openai-error.js';
import { jsonLimit } from './request-body.js';
import { SERVE_DEFAULTS, type ServedAgent } from './serve-options.js';
import { bindingNote, listen } from './start-server.js';

/** Options of `startMcpHttpServer`. */
export interface McpHttpServerOptions {
  agents: ServedAgent[];
  /** Bearer token; required unless `host` is loopback. */
  token?: string;
  host?: string;
  port?: number;
  /** Cap on a request body in bytes (default 1 MiB). */
  maxBodyBytes?: number;
}

/** A listening MCP server over streamable HTTP at `<url>/mcp`. */
export interface McpHttpServer {
  url: string;
  server: Server;
  authNote: string;
  close(): Promise<void>;
}

/**
 * The agents' MCP face over streamable HTTP, at `/mcp`, stateless (a fresh MCP server per request, as the SDK's
 * stateless mode works): a `tools/call` answers on the request's own SSE stream, progress notifications first.
 * The token rule is `qitos serve`'s.
 */
export async function startMcpHttpServer(options: McpHttpServerOptions): Promise<McpHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const authNote = bindingNote(host, options.token);
  const app = new Hono();
  app.onError((err, c) => {
    const e = err instanceof HttpError ? err : new HttpError(500, `internal error: ${(err as Error).message}`, 'server_error');
    return c.json(e.body(), e.status, e.headers);
  });
  if (options.token !== undefined) app.use('*', bearer(options.token));
  app.all('/mcp', jsonLimit(options.maxBodyBytes ?? SERVE_DEFAULTS.maxBodyBytes), async (c) => {
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const server = agentMcpServer(options.agents, { name: 'qitos', version: '1' });
    await server.connect(transport);
    return transport.handleRequest(c.req.raw);
  });
  const { server, url } = await listen(app.fetch, host, options.port ?? 8787);
  return {
    url,
    server,
    authNote,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
