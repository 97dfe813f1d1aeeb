const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/** One allow-list entry, normalized the way the URL parser normalizes a URL's host. */
export interface AllowedHost {
  /** The host as `URL.hostname` spells it (lower case, IPv4 in dotted-quad form, IPv6 in brackets, IDN as punycode). */
  host: string;
  /** Only this port, when given. */
  port?: string;
  /** `*.host`: any subdomain of `host`, not `host` itself. */
  wildcard: boolean;
}

/**
 * Parses an allow-list entry (`example.com`, `example.com:8080`, `*.example.com`, `127.0.0.1`, `[::1]:3000`) and
 * normalizes its host with the URL parser, so `127.1`, `Bücher.de` or `[::0:1]` match the URLs they stand for.
 * Throws an Error naming the entry when it is not a host: a URL with a scheme or path, a bare IPv6 address without
 * brackets, a port out of range, or a wildcard over an IP address (`*.0.0.1` would match `127.0.0.1`).
 */
export function parseAllowedHost(raw: string): AllowedHost {
  const bad = (why: string) => new Error(`web_fetch allowHosts entry ${JSON.stringify(raw)} ${why}`);
  if (typeof raw !== 'string') throw bad('is not a string');
  const entry = raw.trim();
  if (!entry) throw bad('is empty');
  if (/[/?#@\\\s]/.test(entry))
    throw bad(
      'is not a host name: give a host, optionally with :port (e.g. "example.com" or "example.com:8080"), not a URL',
    );
  const wildcard = entry.startsWith('*.');
  const rest = wildcard ? entry.slice(2) : entry;
  if (rest.includes('*')) throw bad('has a "*" that is not a leading "*.": only "*.domain" wildcards are supported');
  const m = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(rest);
  if (!m)
    throw bad(
      rest.includes(':') && !rest.startsWith('[')
        ? 'is not a host: write an IPv6 address in brackets, e.g. "[::1]" or "[::1]:8080"'
        : 'is not a host[:port]',
    );
  const [, hostPart, port] = m;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) throw bad(`has port ${port}, outside 1-65535`);
  let host: string;
  try {
    host = new URL(`http://${hostPart}/`).hostname;
  } catch {
    throw bad('is not a valid host name');
  }
  if (wildcard && (IPV4.test(host) || host.startsWith('[')))
    throw bad('puts a wildcard over an IP address; list the address itself');
  return { host, ...(port !== undefined ? { port: String(Number(port)) } : {}), wildcard };
}

/**
 * True when the URL's host (and port) is in the allow-list. Entries are strings as in `WebFetchToolOptions.allowHosts`
 * (parsed with {@link parseAllowedHost}; an invalid one throws) or already parsed. A URL host given as another
 * spelling of an address (`2130706433`, `0x7f.1`) is the parser's normal form and matches only that address's entry;
 * a name (`localhost`) never matches an address entry (`127.0.0.1`) or the other way round: no DNS lookup is made.
 */
export function hostAllowed(url: URL, allowHosts: readonly (string | AllowedHost)[]): boolean {
  const host = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return allowHosts.some((raw) => {
    const entry = typeof raw === 'string' ? parseAllowedHost(raw) : raw;
    if (entry.port !== undefined && entry.port !== port) return false;
    if (entry.wildcard) return !IPV4.test(host) && !host.startsWith('[') && host.endsWith(`.${entry.host}`);
    return host === entry.host;
  });
}
