import type { LayeredModel, Model, ModelMiddleware } from '../core/index.js';
import { AbortedError, wrapModel } from '../core/index.js';

/** A limit on model requests: so many per second or per minute. */
export interface RateLimit {
  perSecond?: number;
  perMinute?: number;
}

/** Parses `N`, `N/s` or `N/m` (`N/min`) into a RateLimit. A bare number is per second. */
export function parseRateLimit(text: string): RateLimit {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*(s|sec|second|m|min|minute))?\s*$/i.exec(text);
  const n = m ? Number(m[1]) : Number.NaN;
  if (!m || !(n > 0))
    throw new Error(`invalid rate limit "${text}": expected N, N/s or N/m with N > 0 (e.g. 5/s, 300/m)`);
  return /^m/i.test(m[2] ?? '') ? { perMinute: n } : { perSecond: n };
}

/**
 * Spaces request starts evenly so that no more than the limit start in any window: one start every
 * 1/rate seconds, shared by every task of a run. Waiting is abortable.
 */
export class RateLimiter {
  readonly intervalMs: number;
  private next = 0;

  constructor(limit: RateLimit) {
    const perSec = Math.min(limit.perSecond ?? Infinity, (limit.perMinute ?? Infinity) / 60);
    if (!(perSec > 0) || !Number.isFinite(perSec)) throw new Error('RateLimiter needs perSecond or perMinute > 0');
    this.intervalMs = 1000 / perSec;
  }

  /** Resolves when the caller may start a request. */
  async acquire(signal?: AbortSignal): Promise<void> {
    const now = performance.now();
    const at = Math.max(now, this.next);
    this.next = at + this.intervalMs;
    const wait = at - now;
    if (wait <= 0) return;
    await new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(new AbortedError('rate-limit wait aborted'));
      const onAbort = () => {
        clearTimeout(t);
        reject(new AbortedError('rate-limit wait aborted'));
      };
      const t = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, wait);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** Middleware that waits for the limiter before each model call (shared by every run that holds the limiter). */
export function rateLimitMiddleware(limiter: RateLimiter): ModelMiddleware {
  return async (call, next) => {
    await limiter.acquire(call.signal);
    return next(call);
  };
}

/** A Model that waits for the limiter before each request (`rateLimitMiddleware` around `model`). */
export function rateLimitedModel(model: Model, limiter: RateLimiter): LayeredModel {
  return wrapModel(model, [rateLimitMiddleware(limiter)]);
}
