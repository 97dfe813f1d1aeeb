import type { ModelMiddleware, StreamListener } from '../core/index.js';
import { callWithRetry, type RetryOptions } from './retry.js';

/** Options of `retryMiddleware`. */
export interface RetryMiddlewareOptions {
  retry?: RetryOptions;
  /** Per-attempt time limit in ms (default none). */
  timeoutMs?: number;
}

/**
 * Retries a failed model call: each attempt gets its own signal (the caller's abort, plus `timeoutMs`), and
 * retryable failures (transport, rate limit, server, timeout) are tried again with exponential backoff and
 * jitter, honouring a server's `retry-after` (see `callWithRetry`). An attempt that already streamed output
 * is not retried (the listener would see it twice). Before each retry it streams a `retry` event, so a run
 * records the failed attempt as a retry part of its reply and in its trace.
 */
export function retryMiddleware(options: RetryMiddlewareOptions = {}): ModelMiddleware {
  return (call, next) => {
    const listener = call.onEvent;
    return callWithRetry(
      (attempt) => {
        const onEvent: StreamListener = (event) => {
          attempt.outputStarted();
          return listener?.(event);
        };
        return next({ ...call, signal: attempt.signal, onEvent });
      },
      {
        timeoutMs: options.timeoutMs,
        signal: call.signal,
        retry: {
          ...options.retry,
          onRetry: (info) => {
            options.retry?.onRetry?.(info);
            void listener?.({
              type: 'retry',
              attempt: info.attempt,
              delayMs: info.delayMs,
              errorKind: info.error.modelKind,
              error: info.error.message,
            });
          },
        },
      },
    );
  };
}
