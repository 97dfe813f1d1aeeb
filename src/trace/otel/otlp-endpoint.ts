/** Where and how spans are sent: what `otlpTap` resolves from its options and the `OTEL_EXPORTER_OTLP_*` variables. */
export interface OtlpEndpoint {
  /** The traces URL (`.../v1/traces`). */
  url: string;
  protocol: 'http/protobuf' | 'http/json';
  headers: Record<string, string>;
  timeoutMs: number;
}

/** What the endpoint is resolved from (each field overrides its variable). */
export interface OtlpEndpointOptions {
  /** A collector's base URL (`http://host:4318`, `/v1/traces` is added) or its full traces URL. */
  endpoint?: string;
  protocol?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/** Default export timeout: shorter than the spec's 10 s, so that an unreachable collector holds a run's end less. */
export const DEFAULT_OTLP_TIMEOUT_MS = 5000;

/**
 * Resolves where spans go, as the OTLP exporter specification says: an explicit endpoint (a base URL gets
 * `/v1/traces`), else `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as is), else `OTEL_EXPORTER_OTLP_ENDPOINT` (plus
 * `/v1/traces`), else `http://localhost:4318/v1/traces`; headers from `OTEL_EXPORTER_OTLP_HEADERS` and
 * `OTEL_EXPORTER_OTLP_TRACES_HEADERS` (`k=v,k2=v2`, values URL-encoded) under the explicit ones; the protocol
 * `http/protobuf` (default) or `http/json`; the timeout in ms. Throws with the variable's name on a bad value.
 */
export function resolveOtlpEndpoint(
  options: OtlpEndpointOptions,
  env: Readonly<Record<string, string | undefined>>,
): OtlpEndpoint {
  const url = options.endpoint
    ? tracesUrl(options.endpoint, 'the OTLP endpoint')
    : env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
      ? checkedUrl(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')
      : tracesUrl(env.OTEL_EXPORTER_OTLP_ENDPOINT || 'http://localhost:4318', 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const protocol =
    options.protocol ?? env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json')
    throw new Error(
      `OTLP protocol "${protocol}" is not supported: use http/protobuf or http/json (OTEL_EXPORTER_OTLP_PROTOCOL)`,
    );
  const headers = {
    ...parseHeaders(env.OTEL_EXPORTER_OTLP_HEADERS, 'OTEL_EXPORTER_OTLP_HEADERS'),
    ...parseHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
    ...options.headers,
  };
  const rawTimeout = env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? env.OTEL_EXPORTER_OTLP_TIMEOUT;
  const timeoutMs = options.timeoutMs ?? (rawTimeout ? Number(rawTimeout) : DEFAULT_OTLP_TIMEOUT_MS);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
    throw new Error(
      `OTLP timeout must be a positive whole number of ms, got ${JSON.stringify(rawTimeout ?? timeoutMs)}`,
    );
  return { url, protocol, headers, timeoutMs };
}

function checkedUrl(text: string, what: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${what} is not a URL: ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`${what} must be an http:// or https:// URL, got ${JSON.stringify(text)}`);
  return url.href;
}

/** A base URL with `/v1/traces` added (a URL that already ends in it is kept). */
function tracesUrl(text: string, what: string): string {
  const href = checkedUrl(text, what);
  const url = new URL(href);
  if (!/\/v1\/traces\/?$/.test(url.pathname)) url.pathname = url.pathname.replace(/\/?$/, '/v1/traces');
  return url.href;
}

/** `k=v,k2=v2` with URL-encoded values (the OTLP exporter specification's header list). */
function parseHeaders(text: string | undefined, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [i, item] of (text ?? '').split(',').entries()) {
    if (!item.trim()) continue;
    const eq = item.indexOf('=');
    // The item itself is not quoted: it may hold a token.
    if (eq <= 0) throw new Error(`${what}: item ${i + 1} is not key=value`);
    let key: string;
    let value: string;
    try {
      key = decodeURIComponent(item.slice(0, eq).trim());
      value = decodeURIComponent(item.slice(eq + 1).trim());
    } catch {
      throw new Error(`${what}: item ${i + 1} is not URL-encoded`);
    }
    // defineProperty: a "__proto__" key stays a header, never a prototype.
    Object.defineProperty(out, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
