import { ModelError, QitosError } from '../core/index.js';
import { ModelConfigError } from './model-config-error.js';
import { ProviderError } from './provider-error.js';

/** How a provider retries a failed call. Every field has a default. */
export interface RetryOptions {
  /** Retries after the first attempt (default 2; 0 turns retrying off). */
  maxRetries?: number;
  /** Delay before the first retry; it doubles each retry (default 500 ms). */
  baseDelayMs?: number;
  /** Upper bound of a backoff delay (default 20 s). */
  maxDelayMs?: number;
  /** Upper bound of a server's `retry-after` wait (default 60 s): a server asking for longer is obeyed only this long. */
  maxRetryAfterMs?: number;
  /** Source of randomness for jitter, in [0, 1) (default Math.random; tests pin it). */
  random?: () => number;
  /** Called before each retry's wait: logging, traces, tests. */
  onRetry?: (info: RetryInfo) => void;
}

/** What `onRetry` is told. */
export interface RetryInfo {
  /** The retry about to happen, 1-based. */
  attempt: number;
  delayMs: number;
  error: ModelError;
}

/** What one attempt is handed: its own signal (user abort + timeout) and a way to say output has begun. */
export interface AttemptContext {
  signal: AbortSignal;
  attempt: number;
  /** Call once the attempt has emitted its first event: from then on a failure is not retried (no duplicated output). */
  outputStarted(): void;
}

/** Options of `callWithRetry`. */
export interface CallOptions {
  retry?: RetryOptions;
  /** Per-attempt time limit in ms (default none). */
  timeoutMs?: number;
  /** The caller's signal: aborting it ends the call with ModelError kind `aborted`, never retried. */
  signal?: AbortSignal;
  /**
   * Turns what an attempt throws into a ModelError. Default: a ModelError is taken as it is (providers classify
   * their SDK's errors themselves) and anything else is not a model failure: it propagates, never retried.
   */
  classify?: (err: unknown) => ModelError;
}

const DEFAULTS = { maxRetries: 2, baseDelayMs: 500, maxDelayMs: 20_000, maxRetryAfterMs: 60_000 };

/**
 * Runs `attempt` with a per-attempt timeout, abort through `signal`, and retries with exponential backoff and
 * jitter on retryable errors (transport, rate limit, server, timeout), honouring a server's `retry-after`.
 * A failure after the attempt started emitting output is not retried; it is rethrown as a transport error.
 */
export async function callWithRetry<T>(attempt: (ctx: AttemptContext) => Promise<T>, options: CallOptions): Promise<T> {
  // an option given as undefined keeps its default (a plain spread would put undefined over it)
  const retry = { ...DEFAULTS };
  for (const key of Object.keys(DEFAULTS) as Array<keyof typeof DEFAULTS>) {
    const v = options.retry?.[key];
    if (v !== undefined) retry[key] = v;
  }
  const random = options.retry?.random ?? Math.random;
  // `n >= NaN` is never true: a non-integer limit would retry forever
  if (!Number.isInteger(retry.maxRetries) || retry.maxRetries < 0)
    throw new ModelConfigError(`retry.maxRetries must be an integer >= 0, got ${String(retry.maxRetries)}`);
  for (let n = 0; ; n++) {
    if (options.signal?.aborted) throw abortedError(options.signal);
    let started = false;
    const ctl = new AbortController();
    let timedOut = false;
    const onAbort = () => ctl.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const timer =
      options.timeoutMs !== undefined
        ? setTimeout(() => {
            timedOut = true;
            ctl.abort(new Error(`model call timed out after ${options.timeoutMs} ms`));
          }, options.timeoutMs)
        : undefined;
    let error: ModelError;
    try {
      const result = await attempt({ signal: ctl.signal, attempt: n, outputStarted: () => (started = true) });
      // SDK streams end quietly when their signal aborts: an aborted attempt must not pass for a finished one.
      if (ctl.signal.aborted) throw ctl.signal.reason;
      return result;
    } catch (err) {
      // A kernel error that is not a model error (a bug while handling a chunk) is not the provider's fault: no retry.
      if (QitosError.isInstance(err) && !ModelError.isInstance(err)) throw err;
      if (options.signal?.aborted) error = abortedError(options.signal, err);
      else if (timedOut)
        error = new ModelError(
          'timeout',
          `model call timed out after ${options.timeoutMs} ms${started ? ' (mid-stream)' : ''}`,
          undefined,
          { cause: err },
        );
      else if (options.classify) error = options.classify(err);
      else if (ModelError.isInstance(err)) error = err;
      else throw err;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
    if (!error.retryable) throw error;
    if (started) {
      throw new ProviderError(
        error.modelKind,
        `${error.message} (the reply was cut after output had begun; not retried, to avoid duplicated output)`,
        { status: error.status, cause: error },
      );
    }
    if (n >= retry.maxRetries) {
      if (retry.maxRetries === 0) throw error;
      throw new ProviderError(error.modelKind, `${error.message} (gave up after ${n + 1} attempts)`, {
        status: error.status,
        cause: error,
        retryAfterMs: retryAfterOf(error),
      });
    }
    const delayMs = retryDelay(n, error, retry, random);
    options.retry?.onRetry?.({ attempt: n + 1, delayMs, error });
    await sleep(delayMs, options.signal);
  }
}

/** The wait before retry number `n + 1`: the server's `retry-after` (capped) if it sent one, else backoff with jitter. */
export function retryDelay(
  n: number,
  error: ModelError,
  retry: Required<Omit<RetryOptions, 'random' | 'onRetry'>>,
  random: () => number,
): number {
  const after = retryAfterOf(error);
  if (after !== undefined) return Math.min(after, retry.maxRetryAfterMs);
  return backoffDelay(n, retry.baseDelayMs, retry.maxDelayMs, random);
}

/** Exponential backoff with "equal jitter": half the delay is fixed, half random, so retries of many clients spread out. */
export function backoffDelay(
  n: number,
  baseDelayMs: number,
  maxDelayMs: number,
  random: () => number = Math.random,
): number {
  const d = Math.min(maxDelayMs, baseDelayMs * 2 ** n);
  return Math.round(d / 2 + (d / 2) * random());
}

/**
 * Parses a server's wait hint: `retry-after-ms` (milliseconds), or `retry-after` as seconds or an HTTP date.
 * Returns undefined when there is no usable hint (absent, malformed, negative).
 */
export function parseRetryAfter(
  headers: { get(name: string): string | null } | undefined,
  now: number = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.round(Number(ms));
  const v = headers.get('retry-after');
  if (v === null || !v.trim()) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(v)) return Math.round(Number(v) * 1000);
  const date = Date.parse(v);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

function retryAfterOf(error: ModelError): number | undefined {
  return ProviderError.isInstance(error) ? error.retryAfterMs : undefined;
}

function abortedError(signal: AbortSignal, cause?: unknown): ModelError {
  const reason = signal.reason instanceof Error && signal.reason.message ? `: ${signal.reason.message}` : '';
  return new ModelError('aborted', `model call aborted${reason}`, undefined, { cause: cause ?? signal.reason });
}

/** Waits `ms`, or rejects with an aborted ModelError as soon as `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortedError(signal));
    const onAbort = () => {
      clearTimeout(t);
      reject(abortedError(signal!));
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
