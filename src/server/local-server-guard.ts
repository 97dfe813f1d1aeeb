// Its declarations name Node's types (Server): the reference lets a consumer without `types: ["node"]` find them.
/// <reference types="node" preserve="true" />
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { Context } from 'hono';
import ipaddr from 'ipaddr.js';
import { HttpError } from './openai-error.js';

/** What a local server accepts as its own name: the address it listens on, and the names the operator adds. */
export interface LocalServerGuardOptions {
  /** The address the server listens on (`--host`): its loopback names, or that address, or every interface's. */
  host: string;
  /** The port it listens on; a function because port 0 is known only once the server listens. */
  port: () => number | undefined;
  /**
   * More Host names to accept (`--allowed-host`): `name` (any port) or `name:port`, e.g. the name a reverse proxy
   * or a port forward puts in front of the server.
   */
  allowedHosts?: string[];
}

/** The loopback names a browser on this machine uses for a server bound to loopback. */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** Characters a Host header or an allowed host may hold (no path, query, user info or spaces). */
const HOST_CHARS = /^[A-Za-z0-9._~\-[\]:%]+$/;

/** `name:port` as the URL parser reads it (lowercase, IPv6 in brackets, the port as digits or '' for the default). */
function parseHost(value: string, scheme: 'http' | 'https' = 'http'): { name: string; port: string } | undefined {
  if (!HOST_CHARS.test(value)) return undefined;
  try {
    const url = new URL(`${scheme}://${value}`);
    if (url.pathname !== '/' || url.username || url.password) return undefined;
    return { name: url.hostname, port: url.port || (scheme === 'https' ? '443' : '80') };
  } catch {
    return undefined;
  }
}

/** `host` as a Host name: IPv6 in brackets. */
function asName(host: string): string {
  return ipaddr.IPv6.isValid(host) ? `[${ipaddr.parse(host).toString()}]` : host.toLowerCase();
}

/**
 * The Host names a server listening on `host` answers to, without their port: the loopback names when it is
 * loopback; that address when it is one; every address of the machine's interfaces (and the loopback names) when
 * it is a wildcard (0.0.0.0, ::). Names other than these come only from `--allowed-host`: a DNS-rebinding page
 * sends its own name, which is none of them.
 */
export function listeningNames(host: string): string[] {
  const names = new Set<string>();
  const loopback = host === 'localhost' || (ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback');
  const wildcard = ipaddr.isValid(host) && ipaddr.process(host).range() === 'unspecified';
  if (loopback || wildcard) for (const n of LOOPBACK_NAMES) names.add(n);
  if (!wildcard) names.add(asName(host));
  else
    for (const list of Object.values(networkInterfaces()))
      for (const i of list ?? []) names.add(asName(i.address.replace(/%.*$/, '')));
  return [...names];
}

/** Why a request may not reach a local server, or undefined when it may. */
export type LocalRefusal = { code: 'forbidden_host' | 'forbidden_origin'; message: string };

/** What the guard reads of a request. */
export interface LocalRequest {
  method: string;
  header(name: string): string | undefined;
  /** The request URL's host, read only when there is no Host header (a fetch handler outside Node). */
  urlHost(): string;
}

/**
 * The rule every local HTTP server of qitos applies (`qitos serve`, `qitos mcp serve --http`): a web page the user
 * opens must not reach it. A request is refused when
 * - its Host is not a name the server listens as (DNS rebinding: the attacker's name resolving to 127.0.0.1);
 * - it carries an `Origin` that is not the server's own (a page on another site; `Origin: null`, which sandboxed
 *   frames and `file:` pages send, is foreign too);
 * - its `Sec-Fetch-Site` is `cross-site` or `same-site` (another site, or another port of localhost), unless it is
 *   a top-level GET/HEAD navigation (a link to a run's viewer page), which has no side effect a page could use.
 * Clients that are not browsers (SDKs, curl) send no Origin and no Sec-Fetch-* headers, and name the server as
 * they reached it.
 */
export class LocalServerGuard {
  private readonly names: string[];
  private readonly allowed: Array<{ name: string; port: string | undefined }>;

  constructor(private readonly options: LocalServerGuardOptions) {
    this.names = listeningNames(options.host);
    this.allowed = (options.allowedHosts ?? []).map((h) => {
      const hasPort = /^(\[[^\]]*\]|[^:[\]]*):\d+$/.test(h);
      const parsed = parseHost(h);
      if (!parsed || !parsed.name)
        throw new Error(`--allowed-host ${JSON.stringify(h)} is not a host name (name or name:port)`);
      return { name: parsed.name, port: hasPort ? parsed.port : undefined };
    });
  }

  /** The Host values accepted, for messages and docs (`name:port`, `name:*` for an allowed name without port). */
  accepted(): string[] {
    const port = this.options.port();
    return [...this.names.map((n) => `${n}:${port ?? '*'}`), ...this.allowed.map((a) => `${a.name}:${a.port ?? '*'}`)];
  }

  /** `name:port` of each listening name, as clients write them: the common case skips the URL parser. */
  private exact: Set<string> | undefined;

  private knownHost(value: string): boolean {
    const port = this.options.port();
    if (port === undefined) return false;
    this.exact ??= new Set(this.names.map((n) => `${n}:${port}`));
    return this.exact.has(value);
  }

  private hostOk(h: { name: string; port: string }): boolean {
    const port = String(this.options.port() ?? '');
    if (this.names.includes(h.name) && h.port === port) return true;
    return this.allowed.some((a) => a.name === h.name && (a.port === undefined || a.port === h.port));
  }

  /** Why `req` is refused, or undefined. */
  check(req: LocalRequest): LocalRefusal | undefined {
    const rawHost = req.header('host') ?? req.urlHost();
    if (!this.knownHost(rawHost)) {
      const host = parseHost(rawHost);
      if (!host || !this.hostOk(host)) {
        return {
          code: 'forbidden_host',
          message:
            `Host ${JSON.stringify(rawHost.slice(0, 100))} is not a name this server listens as ` +
            `(${this.accepted().join(', ')}); add it with --allowed-host if it is yours`,
        };
      }
    }
    const origin = req.header('origin');
    if (origin !== undefined) {
      const url = /^https?:\/\/[^/]+$/i.test(origin)
        ? parseHost(origin.replace(/^https?:\/\//i, ''), origin.toLowerCase().startsWith('https') ? 'https' : 'http')
        : undefined;
      if (!url || !this.hostOk(url))
        return {
          code: 'forbidden_origin',
          message:
            `requests from the web page at Origin ${JSON.stringify(origin.slice(0, 100))} are ` +
            `refused: this server answers only its own origin and clients that are not browsers`,
        };
    }
    const site = req.header('sec-fetch-site')?.toLowerCase();
    if (site === 'cross-site' || site === 'same-site') {
      const navigation =
        (req.method === 'GET' || req.method === 'HEAD') && req.header('sec-fetch-mode')?.toLowerCase() === 'navigate';
      if (!navigation)
        return {
          code: 'forbidden_origin',
          message:
            `a ${site} request from a web page is refused (Sec-Fetch-Site: ${site}): this server ` +
            `answers only its own origin and clients that are not browsers`,
        };
    }
    return undefined;
  }

  /** The Hono middleware: a refused request is a 403 with the JSON error of the app (thrown as an HttpError). */
  middleware() {
    return async (c: Context, next: () => Promise<void>) => {
      const refusal = this.check({
        method: c.req.method,
        header: (n) => c.req.header(n),
        urlHost: () => new URL(c.req.url).host,
      });
      if (refusal) throw new HttpError(403, refusal.message, 'invalid_request_error', refusal.code);
      await next();
    };
  }
}

/**
 * The guard of a local server about to listen on `host` (`qitos serve`, `qitos mcp serve --http`, `qitos board`):
 * `listening(server)` gives it the port once the server listens (port 0 picks one).
 */
export function localGuard(
  host: string,
  allowedHosts: string[] | undefined,
): { guard: LocalServerGuard; listening(server: Server): void } {
  let port: number | undefined;
  const guard = new LocalServerGuard({ host, port: () => port, ...(allowedHosts ? { allowedHosts } : {}) });
  return { guard, listening: (server) => void (port = (server.address() as AddressInfo).port) };
}

/**
 * True when a request looks like a browser's: it carries `Origin` (browsers send it on every POST) or
 * `Sec-Fetch-Site` (sent to loopback and HTTPS servers). SDKs and curl send neither; Node's fetch sends
 * `Sec-Fetch-Mode` alone, so that header does not count.
 */
export function fromBrowser(header: (name: string) => string | undefined): boolean {
  return header('origin') !== undefined || header('sec-fetch-site') !== undefined;
}
