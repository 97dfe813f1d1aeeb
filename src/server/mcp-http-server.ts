// Its declarations name Node's types: the reference lets a consumer whose tsconfig lacks `types: ["node"]` find them.
/// <reference types="node" preserve="true" />
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Hono } from 'hono';
import { agentMcpServer, type RunSlots } from './agent-mcp-server.js';
import { bearer } from './bearer-auth.js';
import { LiveRuns } from './live-runs.js';
import { localGuard } from './local-server-guard.js';
import { HttpError } from './openai-error.js';
import { jsonLimit } from './request-body.js';
import type { ServedAgent } from '../app/served-agents.js';
import { SERVE_DEFAULTS, type ConnectionLimits } from './serve-options.js';
import { bindingNote, listen } from './start-server.js';

/** Options of `startMcpHttpServer`. */
export interface McpHttpServerOptions extends ConnectionLimits {
  agents: ServedAgent[];
  /** Bearer token; required unless `host` is loopback. */
  token?: string;
  host?: string;
  port?: number;
  /** Cap on a request body in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Host names accepted besides the ones the server listens as (`name` or `name:port`; see LocalServerGuard). */
  allowedHosts?: string[];
  /** Runs at once, over every session (default 8, as `qitos serve`); a call past it is a tool error. */
  maxRuns?: number;
  /** Sessions at once (default 64); a new one past it is answered 503. */
  maxSessions?: number;
  /** A session with no request and no run for this long is closed (default 10 min). */
  sessionIdleMs?: number;
}

/** A listening MCP server over streamable HTTP at `<url>/mcp`. */
export interface McpHttpServer {
  url: string;
  server: Server;
  authNote: string;
  /** Runs going, over every session. */
  readonly activeRuns: number;
  /** Sessions open. */
  readonly sessions: number;
  /** Closes every session (which interrupts its runs: their traces end `interrupted`) and the connections. */
  close(): Promise<void>;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
  lastSeen: number;
  runs: number;
}

/**
 * The agents' MCP face over streamable HTTP, at `/mcp`, with sessions (`Mcp-Session-Id`): a session is one MCP
 * server, so a `notifications/cancelled` reaches the call it names and interrupts its run, as over stdio. A
 * `tools/call` answers on the request's own SSE stream, progress notifications first. The token and Host/Origin
 * rules are `qitos serve`'s; `maxRuns` caps the runs of all sessions together.
 */
export async function startMcpHttpServer(options: McpHttpServerOptions): Promise<McpHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const authNote = bindingNote(host, options.token);
  const { guard, listening } = localGuard(host, options.allowedHosts);
  const runs = new LiveRuns();
  const maxRuns = options.maxRuns ?? SERVE_DEFAULTS.maxRuns;
  const maxSessions = options.maxSessions ?? 64;
  const idleMs = options.sessionIdleMs ?? 10 * 60_000;
  const sessions = new Map<string, Session>();

  const open = async (): Promise<Session> => {
    const session = { lastSeen: Date.now(), runs: 0 } as Session;
    const slots: RunSlots = {
      max: maxRuns,
      reserve: () => {
        if (!runs.reserve(maxRuns)) return false;
        session.runs++;
        return true;
      },
      release: () => {
        session.runs--;
        runs.release();
      },
    };
    session.transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, session),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    session.server = agentMcpServer(options.agents, { name: 'qitos', version: '1' }, slots);
    session.transport.onclose = () =>
      void (session.transport.sessionId && sessions.delete(session.transport.sessionId));
    await session.server.connect(session.transport);
    return session;
  };

  const app = new Hono();
  app.onError((err, c) => {
    const e = HttpError.isInstance(err)
      ? err
      : new HttpError(500, `internal error: ${(err as Error).message}`, 'server_error');
    return c.json(e.body(), e.status, e.headers);
  });
  app.use('*', guard.middleware());
  if (options.token !== undefined) app.use('*', bearer(options.token));
  app.all('/mcp', jsonLimit(options.maxBodyBytes ?? SERVE_DEFAULTS.maxBodyBytes), async (c) => {
    const id = c.req.header('mcp-session-id');
    if (id !== undefined) {
      const session = sessions.get(id);
      // the spec's answer to an unknown or expired session: 404, and the client starts a new one
      if (!session)
        return c.json(
          {
            jsonrpc: '2.0',
            error: {
              code: -32001,
              message: `no session ${JSON.stringify(id.slice(0, 80))}: it ended or expired; initialize a new one`,
            },
            id: null,
          },
          404,
        );
      session.lastSeen = Date.now();
      return session.transport.handleRequest(c.req.raw);
    }
    if (sessions.size >= maxSessions)
      throw new HttpError(
        503,
        `the server has ${maxSessions} MCP sessions open, its limit; close one (DELETE /mcp) or retry later`,
        'server_error',
        'session_limit',
        null,
        { 'retry-after': '5' },
      );
    // Without a session id only `initialize` is answered (the transport refuses the rest with 400); a session it
    // did not open is closed again at once.
    const session = await open();
    const res = await session.transport.handleRequest(c.req.raw);
    if (session.transport.sessionId === undefined) await session.server.close();
    return res;
  });

  const sweep = setInterval(
    () => {
      for (const s of sessions.values()) if (s.runs === 0 && Date.now() - s.lastSeen > idleMs) void s.server.close();
    },
    Math.min(idleMs, 60_000),
  ).unref();

  const { server, url } = await listen(app.fetch, host, options.port ?? 8787, options);
  listening(server);
  return {
    url,
    server,
    authNote,
    get activeRuns() {
      return runs.active;
    },
    get sessions() {
      return sessions.size;
    },
    close: async () => {
      clearInterval(sweep);
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([...sessions.values()].map((s) => s.server.close()));
      // the closed sessions' runs are interrupted; their traces are final once each run has given its slot back
      const end = Date.now() + 5000;
      while (runs.active > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      server.closeAllConnections();
      await stopped;
    },
  };
}
