// Its declarations name Node's types: the reference lets a consumer whose tsconfig lacks `types: ["node"]` find them.
/// <reference types="node" preserve="true" />
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import ipaddr from 'ipaddr.js';
import { AbortedError } from '../core/index.js';
import { localGuard } from './local-server-guard.js';
import { createServeApp, type ServeApp } from './serve-app.js';
import { SERVE_DEFAULTS, type ConnectionLimits, type ServeAppOptions } from './serve-options.js';

/** Where and how `startServer` listens. */
export interface StartServerOptions extends Omit<ServeAppOptions, 'guard'>, ConnectionLimits {
  /** Default 127.0.0.1. A host that is not loopback requires a token. */
  host?: string;
  /** Default 8787; 0 picks a free port. */
  port?: number;
  /** Host names accepted besides the ones the server listens as (`name` or `name:port`; see LocalServerGuard). */
  allowedHosts?: string[];
}

/** A listening server. */
export interface RunningServer extends ServeApp {
  url: string;
  server: Server;
  /** A line for the operator about the token (none needed on loopback, or one is required). */
  authNote: string;
  /**
   * Graceful shutdown: stops accepting connections, lets the runs going finish for up to `graceMs` (default
   * 10 s), then interrupts the rest (their traces end `interrupted`), waits until every trace is finalized, and
   * closes the remaining connections.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** True for a loopback address or `localhost`. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (!ipaddr.isValid(host)) return false;
  const addr = ipaddr.process(host);
  return addr.range() === 'loopback';
}

/**
 * Starts the server. Bound to loopback, the token is optional; bound elsewhere, it is required (an Error
 * otherwise): an agent with tools must not be open to the network.
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const authNote = bindingNote(host, options.token);
  const { guard, listening } = localGuard(host, options.allowedHosts);
  const served = createServeApp({ ...options, guard });
  const { server, url } = await listen(served.app.fetch, host, options.port ?? 8787, options);
  listening(server);
  let closing: Promise<void> | undefined;
  const close = (o: { graceMs?: number } = {}) =>
    (closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const ends = Promise.all(served.runs.all().map((r) => r.done()));
      const grace = new Promise<'late'>((resolve) => setTimeout(resolve, o.graceMs ?? 10_000, 'late').unref());
      if ((await Promise.race([ends, grace])) === 'late')
        for (const r of served.runs.all()) r.abort(new AbortedError('the server is shutting down'));
      await ends;
      server.closeIdleConnections();
      // the streams of the runs have ended; what is left open is idle or a client that stopped reading
      setTimeout(() => server.closeAllConnections(), 1000).unref();
      await stopped;
    })());
  return { ...served, url, server, authNote, close };
}

/**
 * The line that tells the operator how clients authenticate; throws when `host` is not loopback and there is no
 * token (an agent with tools must not be open to the network).
 */
export function bindingNote(host: string, token: string | undefined): string {
  if (!isLoopback(host) && !token)
    throw new Error(`a token is required to listen on ${host}, which is not a loopback address: set QITOS_SERVE_TOKEN`);
  return token
    ? 'a bearer token is required (Authorization: Bearer <token>)'
    : `no token set: any local user can call this server (it is bound to loopback ${host}; set QITOS_SERVE_TOKEN to require one)`;
}

/**
 * A Node HTTP server for a Web `fetch` handler, listening on host:port; resolves once it listens, with its URL.
 * A slow client (slowloris: headers or a body sent a byte at a time) holds a connection at most `headersTimeoutMs`
 * / `requestTimeoutMs` (checked every second rather than Node's 30 s), and no more than `maxConnections` are open.
 */
export async function listen(
  fetch: (req: Request) => Response | Promise<Response>,
  host: string,
  port: number,
  limits: ConnectionLimits = {},
): Promise<{ server: Server; url: string }> {
  const headersTimeout = limits.headersTimeoutMs ?? SERVE_DEFAULTS.headersTimeoutMs;
  const requestTimeout = Math.max(limits.requestTimeoutMs ?? SERVE_DEFAULTS.requestTimeoutMs, headersTimeout);
  const serverOptions = { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.min(1000, headersTimeout) };
  const server = createAdaptorServer({ fetch, serverOptions }) as Server;
  server.maxConnections = limits.maxConnections ?? SERVE_DEFAULTS.maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  return { server, url: `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}` };
}
