import type { Response } from 'undici';
import { z } from 'zod';
import { QitosError, defineTool } from '../../core/index.js';
import { looksBinary } from './binary-content.js';
import { htmlTitle, htmlToText } from './html-to-text.js';
import { toolError } from './tool-env.js';
import { formatBytes, truncateOutput, type OutputLimits } from './truncate-output.js';
import { pinnedLookup, systemResolver, type Resolver } from './web-fetch-address.js';
import { hostAllowed, parseAllowedHost, type AllowedHost } from './web-fetch-hosts.js';

/** Options of the web_fetch tool. */
export interface WebFetchToolOptions {
  /**
   * Hosts the tool may fetch from, required: `example.com` (that host, any port), `example.com:8080`
   * (that port only), `*.example.com` (any subdomain, not the bare domain), `127.0.0.1`, `[::1]:3000`.
   * Empty: every fetch is refused. A name is connected to only at a public address, or at an address this
   * list names itself (see {@link pinnedLookup}).
   */
  allowHosts: string[];
  /** Largest response body read, bytes (default 5 MiB); a larger one is an error. */
  maxBytes?: number;
  /** Time for the whole fetch, redirects and body included, ms (default 30 000). */
  timeoutMs?: number;
  /** Redirects followed, each re-checked against the allow-list (default 5). */
  maxRedirects?: number;
  userAgent?: string;
  limits?: OutputLimits;
  /** Resolves names (default the system resolver); each connection resolves once and uses the address it checked. */
  resolve?: Resolver;
}

const TEXT_TYPES =
  /^(text\/|application\/(json|xml|javascript|ecmascript|x-www-form-urlencoded|ld\+json|rss\+xml|atom\+xml|x-yaml|yaml|toml)|application\/[\w.+-]+\+(json|xml))/i;

/** What {@link fetchAllowed} needs: the parsed allow-list and the limits of a fetch (see WebFetchToolOptions). */
export interface FetchSettings {
  allowHosts: readonly AllowedHost[];
  /** The allow-list as the user wrote it, for messages. */
  allowedText: string;
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  userAgent?: string;
  resolve: Resolver;
}

/** The settings of web_fetch's options (defaults applied, allow-list parsed: a bad entry throws here). */
export function fetchSettings(options: Omit<WebFetchToolOptions, 'limits'>): FetchSettings {
  if (!options || !Array.isArray(options.allowHosts))
    throw new Error('webFetchTool needs { allowHosts: [...] }: the hosts it may fetch from');
  // Parsed once, so a bad entry is an error when the tool is made, not a silently dead entry at fetch time.
  const allowHosts = options.allowHosts.map(parseAllowedHost);
  return {
    allowHosts,
    allowedText: allowHosts.length ? options.allowHosts.map((h) => h.trim()).join(', ') : '(none configured)',
    maxBytes: options.maxBytes ?? 5 * 1024 * 1024,
    timeoutMs: options.timeoutMs ?? 30_000,
    maxRedirects: options.maxRedirects ?? 5,
    ...(options.userAgent !== undefined ? { userAgent: options.userAgent } : {}),
    resolve: options.resolve ?? systemResolver,
  };
}

/** A text response fetched by {@link fetchAllowed}. */
export interface FetchedPage {
  /** The final URL, after redirects. */
  url: URL;
  status: number;
  /** The media type, lower case, without parameters ('' when none was sent). */
  mime: string;
  /** The body decoded as text (charset from the content type, else UTF-8). */
  body: string;
  bytes: number;
  redirects: number;
}

/**
 * GETs an http(s) URL from an allow-listed host, as web_fetch does: every redirect is followed by hand and checked
 * against the allow-list, every connection goes only to an address that passed the address check (DNS pinned),
 * the body is read up to the size cap, the whole fetch has a time limit, and an error status, binary content or a
 * type that is not text is a tool error (QitosError) the model reads. Shared by web_fetch and the text browser of
 * TextWebEnv.
 */
export async function fetchAllowed(rawUrl: string, s: FetchSettings, callSignal: AbortSignal): Promise<FetchedPage> {
  let url = checkUrl(rawUrl, s.allowHosts, s.allowedText);
  // undici is loaded on the first fetch, not with the package (import cost, and one copy per process).
  const { Agent, fetch } = await import('undici');
  // Our own, referenced timer: the one of AbortSignal.timeout is unreferenced, and inside AbortSignal.any it can
  // be garbage collected before it fires, leaving the fetch with no time limit at all.
  const timeout = new AbortController();
  const timer = setTimeout(
    () => timeout.abort(new DOMException(`timed out after ${s.timeoutMs} ms`, 'TimeoutError')),
    s.timeoutMs,
  );
  const signal = AbortSignal.any([callSignal, timeout.signal]);
  // One connection pool per call, whose sockets connect only to addresses that passed the check.
  const dispatcher = new Agent({ connect: { lookup: pinnedLookup(s.allowHosts, s.resolve) } });
  const started = Date.now();
  try {
    let res: Response;
    let hops = 0;
    try {
      for (;;) {
        res = await fetch(url, {
          redirect: 'manual',
          signal,
          dispatcher,
          headers: {
            'user-agent': s.userAgent ?? 'qitos-ts web_fetch',
            accept: 'text/html,text/plain,application/json,*/*;q=0.5',
          },
        });
        const location = res.headers.get('location');
        if (res.status < 300 || res.status >= 400 || !location) break;
        await res.body?.cancel();
        if (++hops > s.maxRedirects)
          throw toolError(`too many redirects (more than ${s.maxRedirects}) starting from ${rawUrl}`);
        url = checkUrl(new URL(location, url).toString(), s.allowHosts, s.allowedText, url.toString());
      }
    } catch (err) {
      throw fetchFailure(err, url, s.timeoutMs, started);
    }
    const bytes = await readBody(res, s.maxBytes, url).catch((err: unknown) => {
      throw fetchFailure(err, url, s.timeoutMs, started);
    });
    const type = res.headers.get('content-type') ?? '';
    const mime = type.split(';')[0].trim().toLowerCase();
    if (!res.ok) {
      const snippet = looksBinary(bytes) ? '' : ` Body starts: ${decode(bytes, type).slice(0, 300)}`;
      throw toolError(`HTTP ${res.status} ${res.statusText} from ${url}.${snippet}`);
    }
    if (looksBinary(bytes) || (mime && !mime.includes('html') && !TEXT_TYPES.test(mime))) {
      throw toolError(
        `${url} returned ${mime || 'binary content'} (${formatBytes(bytes.length)}), which web_fetch cannot show as text.`,
      );
    }
    return { url, status: res.status, mime, body: decode(bytes, type), bytes: bytes.length, redirects: hops };
  } finally {
    clearTimeout(timer);
    await dispatcher.destroy();
  }
}

/**
 * `web_fetch`: GETs an http(s) URL from an allow-listed host and returns its text (HTML turned into
 * readable text unless `format` is `raw`). Redirects are followed by hand so each hop is checked against
 * the allow-list; the body is read up to a size cap; the whole fetch has a time limit.
 */
export function webFetchTool(options: WebFetchToolOptions) {
  const settings = fetchSettings(options);
  return defineTool({
    id: 'web_fetch',
    description:
      `Fetch a web page or file over http(s) and return it as text (HTML is converted to plain ` +
      `text). Allowed hosts: ${settings.allowedText}. Responses ` +
      `over ${formatBytes(settings.maxBytes)} are refused.`,
    parameters: z.object({
      url: z.string().min(1).describe('Full http:// or https:// URL.'),
      format: z
        .enum(['text', 'raw'])
        .optional()
        .describe('text (default): HTML converted to readable text; raw: the body as received.'),
    }),
    permission: (args) => ({ kind: 'host', value: urlHost(args.url) }),
    async execute(args, ctx) {
      const page = await fetchAllowed(args.url, settings, ctx.signal);
      const { url, mime, body } = page;
      const isHtml = mime.includes('html') || (!mime && /^\s*<(!doctype html|html)/i.test(body));
      const title = isHtml ? htmlTitle(body) : undefined;
      const text = isHtml && args.format !== 'raw' ? htmlToText(body) : body;
      const headerLine =
        `URL: ${url}${page.redirects ? ` (after ${page.redirects} redirect${page.redirects === 1 ? '' : 's'})` : ''}\nStatus: ${page.status}; ` +
        `type: ${mime || 'unknown'}; ${formatBytes(page.bytes)}${title ? `\nTitle: ${title}` : ''}\n\n`;
      const t = truncateOutput(
        headerLine + text,
        'The full page is kept in the trace; fetch a more specific URL if you need another part.',
        options.limits,
      );
      return {
        output: t.output,
        ...(t.full !== undefined ? { full: t.full } : {}),
        title: title ?? url.toString(),
        metadata: {
          url: url.toString(),
          status: page.status,
          contentType: mime,
          bytes: page.bytes,
          redirects: page.redirects,
          truncated: t.truncated,
        },
      };
    },
  });
}

function checkUrl(raw: string, allowHosts: readonly AllowedHost[], allowedText: string, from?: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw toolError(`"${raw}" is not a valid URL; give a full URL such as https://example.com/page`);
  }
  const via = from ? ` (redirected from ${from})` : '';
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw toolError(
      `URL scheme "${url.protocol.replace(/:$/, '')}" is not allowed${via}: web_fetch only fetches http and https URLs.`,
    );
  if (url.username || url.password)
    throw toolError(`URL ${url.origin} carries credentials${via}; web_fetch does not send them.`);
  if (allowHosts.length === 0)
    throw toolError(
      `web_fetch has no allowed hosts configured, so ${url.host} cannot be fetched. The user ` +
        `must list the hosts in webFetchTool({ allowHosts }).`,
    );
  if (!hostAllowed(url, allowHosts))
    throw toolError(`host ${url.host} is not in the allowed hosts${via}. Allowed: ${allowedText}.`);
  return url;
}

/** The body, refused when its declared length or the bytes actually sent pass `maxBytes`. */
async function readBody(res: Response, maxBytes: number, url: URL): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel();
    throw toolError(`response from ${url} is ${formatBytes(declared)}, over the ${formatBytes(maxBytes)} limit.`);
  }
  if (!res.body) return new Uint8Array();
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > maxBytes) {
      await reader.cancel();
      throw toolError(`response from ${url} is over the ${formatBytes(maxBytes)} limit; it was not read to the end.`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

function decode(bytes: Uint8Array, contentType: string): string {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch (err) {
    // An unknown charset label: read it as UTF-8 rather than fail the whole fetch.
    if (err instanceof RangeError) return new TextDecoder('utf-8').decode(bytes);
    throw err;
  }
}

function fetchFailure(err: unknown, url: URL, timeoutMs: number, started: number): Error {
  if (QitosError.isInstance(err)) return err;
  const e = err as Error & { cause?: { code?: string; message?: string } };
  // A refusal of the address check comes back as the cause of undici's "fetch failed".
  if (QitosError.isInstance(e?.cause)) return e.cause;
  if (e?.name === 'TimeoutError') return toolError(`fetching ${url} timed out after ${timeoutMs} ms.`);
  if (e?.name === 'AbortError') return toolError(`fetching ${url} was aborted after ${Date.now() - started} ms.`);
  const cause = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
  return toolError(`fetching ${url} failed: ${cause}.`);
}

/** The host a URL names, for permission rules (the text itself when it is not a URL: the fetch refuses it later). */
function urlHost(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}
