import { ModelError, errorMessage } from '../core/index.js';
import { ProviderError } from './provider-error.js';
import { parseRetryAfter } from './retry.js';

/** The error classes of an SDK (the `openai` and `@anthropic-ai/sdk` packages have the same shape). */
export interface SdkErrorClasses {
  APIError: abstract new (...args: never[]) => Error & {
    status?: number;
    headers?: { get(name: string): string | null };
    error?: unknown;
    requestID?: string | null;
  };
  APIConnectionError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
  APIUserAbortError: abstract new (...args: never[]) => Error;
}

/**
 * Phrases and codes servers use when a request does not fit the model's context window: OpenAI and
 * compatible servers (`context_length_exceeded`, "maximum context length"), Anthropic ("prompt is too long"),
 * vLLM, llama.cpp/Ollama ("exceeds the available context size"), TGI, and others.
 */
const CONTEXT_OVERFLOW = [
  /context[_ ]length[_ ]exceeded/i,
  /maximum context length/i,
  /prompt is too long/i,
  /context[_ ]window/i,
  /exceeds? (the )?(available |maximum |model'?s? )?context/i,
  /context (size|length) (of|is) .*exceed/i,
  /input is too long/i,
  /too many (input |prompt )?tokens/i,
  /reduce the length of the (messages|prompt|input)/i,
  /input tokens? exceed/i,
];

/** True when an error text says the request did not fit the context window. */
export function isContextOverflowText(text: string): boolean {
  return CONTEXT_OVERFLOW.some((re) => re.test(text));
}

/**
 * Classifies anything an SDK call or stream threw into a ModelError kind:
 * connection failures -> transport, SDK timeouts and 408 -> timeout, 429 -> rate_limit (except an exhausted
 * quota, which waiting does not fix -> auth), 5xx/529 -> server, 401/403 -> auth, a context-length complaint
 * -> context_overflow, other 4xx -> bad_request. Errors mid-stream without a status (an SSE `error` frame)
 * take the HTTP status their body names (`code: 400`, as vLLM and others send it), else are classified by
 * their type; anything else thrown while reading (a cut socket, bad JSON) is transport.
 */
export function classifyProviderError(
  err: unknown,
  provider: string,
  sdk: SdkErrorClasses,
  endpoint?: string,
): ModelError {
  if (ModelError.isInstance(err)) return err;
  const where = `${provider}: `;
  if (err instanceof sdk.APIUserAbortError)
    return new ModelError('aborted', `${where}request aborted`, undefined, { cause: err });
  if (err instanceof sdk.APIConnectionTimeoutError)
    return new ProviderError('timeout', `${where}request timed out`, { cause: err });
  if (err instanceof sdk.APIConnectionError) {
    const unreachable = unreachableCause(err);
    if (unreachable)
      return new ProviderError('unreachable', `${where}cannot reach ${endpoint ?? 'the endpoint'}: ${unreachable}`, {
        cause: err,
      });
    return new ProviderError(
      'transport',
      `${where}connection failed${endpoint ? ` (${endpoint})` : ''}: ${causeText(err)}`,
      { cause: err },
    );
  }
  if (err instanceof sdk.APIError) {
    const body = bodyInfo(err.error);
    const status = typeof err.status === 'number' ? err.status : body.status;
    const text = `${err.message} ${body.code ?? ''} ${body.type ?? ''}`;
    const common = {
      status,
      cause: err,
      requestId: err.requestID ?? undefined,
      retryAfterMs: parseRetryAfter(err.headers),
    };
    const msg = `${where}${err.message}`;
    // A 429 "too many tokens per minute" is a rate limit, not an overflow.
    const limited = status === 429 || /rate_limit/i.test(`${body.type ?? ''} ${body.code ?? ''}`);
    if (!limited && isContextOverflowText(text) && (status === undefined || (status >= 400 && status < 500)))
      return new ProviderError('context_overflow', msg, common);
    if (status === undefined) {
      // An error frame inside a stream: the body's type says what it was.
      const t = `${body.type ?? ''} ${body.code ?? ''}`;
      if (/rate_limit/i.test(t)) return new ProviderError('rate_limit', msg, common);
      if (/invalid_request|bad_request/i.test(t)) return new ProviderError('bad_request', msg, common);
      if (/authentication|permission/i.test(t)) return new ProviderError('auth', msg, common);
      return new ProviderError('server', msg, common);
    }
    if (status === 429) {
      if (/insufficient_quota|quota|billing/i.test(text))
        return new ProviderError('auth', `${msg} (quota or billing: retrying will not help)`, common);
      return new ProviderError('rate_limit', msg, common);
    }
    if (status === 401 || status === 403) return new ProviderError('auth', msg, common);
    if (status === 408) return new ProviderError('timeout', msg, common);
    if (status >= 500) return new ProviderError('server', msg, common);
    return new ProviderError('bad_request', msg, common);
  }
  return new ProviderError('transport', `${where}stream failed: ${causeText(err)}`, { cause: err });
}

/** What the system error codes of an unreachable endpoint mean, in words a user acts on. */
const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'connection refused: is the server running on that host and port?',
  ENOTFOUND: 'the host name does not resolve (DNS)',
  EAI_AGAIN: 'the host name could not be resolved now (DNS)',
  EHOSTUNREACH: 'no route to the host',
  ENETUNREACH: 'the network is unreachable',
};

/**
 * Why an endpoint cannot be reached, from the codes in an error's cause chain (the SDKs wrap fetch's
 * `TypeError: fetch failed`, whose cause holds the system error), or undefined when the chain names none.
 * A TLS failure (an untrusted or expired certificate, a name mismatch) is unreachable too: retrying does not fix it.
 */
export function unreachableCause(err: unknown): string | undefined {
  for (
    let e: unknown = err, depth = 0;
    e && typeof e === 'object' && depth < 6;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    const words = Object.hasOwn(UNREACHABLE, code) ? UNREACHABLE[code] : undefined;
    if (words) return `${words} (${code})`;
    if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return `TLS failed: ${errorMessage(e)} (${code})`;
  }
  return undefined;
}

function causeText(err: unknown): string {
  const own = errorMessage(err);
  const cause = err instanceof Error && err.cause !== undefined ? errorMessage(err.cause) : '';
  return cause && cause !== own ? `${own} (${cause})` : own;
}

/**
 * `code`, `type` and the HTTP status an error body names (OpenAI: {code, type, message}; Anthropic: {type: 'error',
 * error: {type, message}}; vLLM and others inside a 200 stream: {object: 'error', message, code: 400}).
 */
function bodyInfo(body: unknown): { code?: string; type?: string; status?: number } {
  if (!body || typeof body !== 'object') return {};
  const b = body as Record<string, unknown>;
  const inner = b.error && typeof b.error === 'object' ? (b.error as Record<string, unknown>) : undefined;
  const pick = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const code = b.code ?? inner?.code;
  const status =
    typeof code === 'number' || (typeof code === 'string' && /^\d{3}$/.test(code)) ? Number(code) : undefined;
  return {
    code: pick(code),
    type: pick(inner?.type) ?? pick(b.type),
    ...(status !== undefined && status >= 400 && status < 600 ? { status } : {}),
  };
}
