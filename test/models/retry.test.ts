import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ModelError, QitosError } from '../../src/core/index.js';
import { ProviderError, backoffDelay, callWithRetry, parseRetryAfter } from '../../src/models/index.js';

const headers = (h: Record<string, string>) => new Headers(h);

describe('parseRetryAfter', () => {
  it('reads seconds, milliseconds and HTTP dates', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter(headers({ 'retry-after': '7' }), now)).toBe(7000);
    expect(parseRetryAfter(headers({ 'retry-after': '1.5' }), now)).toBe(1500);
    expect(parseRetryAfter(headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(parseRetryAfter(headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' }), now)).toBe(30_000);
    expect(parseRetryAfter(headers({ 'retry-after': 'Tue, 31 Dec 2024 23:00:00 GMT' }), now)).toBe(0);
    expect(parseRetryAfter(headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfter(headers({}), now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('round-trips any whole number of seconds and any future date', () => {
    fc.assert(fc.property(fc.nat(100_000), (s) => parseRetryAfter(headers({ 'retry-after': String(s) })) === s * 1000));
    const now = Date.parse('2030-06-01T12:00:00Z');
    fc.assert(
      fc.property(
        fc.nat(86_400),
        (s) => parseRetryAfter(headers({ 'retry-after': new Date(now + s * 1000).toUTCString() }), now) === s * 1000,
      ),
    );
  });
});

describe('backoffDelay', () => {
  it('stays within [d/2, d] for d = min(max, base * 2^n), for any randomness', () => {
    fc.assert(
      fc.property(
        fc.nat(12),
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 1, max: 60_000 }),
        fc.double({ min: 0, max: 0.999999, noNaN: true }),
        (n, base, max, r) => {
          const d = Math.min(max, base * 2 ** n);
          const v = backoffDelay(n, base, max, () => r);
          return v >= Math.floor(d / 2) && v <= Math.ceil(d);
        },
      ),
    );
  });
});

describe('callWithRetry', () => {
  const classify = (e: unknown) => (e instanceof ModelError ? e : new ModelError('transport', String(e)));

  it('retries retryable errors only, up to maxRetries', async () => {
    let n = 0;
    await expect(
      callWithRetry(
        async () => {
          n++;
          throw new ModelError('bad_request', 'no');
        },
        { classify, retry: { baseDelayMs: 1 } },
      ),
    ).rejects.toMatchObject({ modelKind: 'bad_request' });
    expect(n).toBe(1);
    n = 0;
    await expect(
      callWithRetry(
        async () => {
          n++;
          throw new ModelError('server', 'down');
        },
        { classify, retry: { maxRetries: 3, baseDelayMs: 1 } },
      ),
    ).rejects.toMatchObject({ modelKind: 'server' });
    expect(n).toBe(4);
  });

  it('uses the retry-after of the error, capped by maxRetryAfterMs', async () => {
    const delays: number[] = [];
    let n = 0;
    const r = await callWithRetry(
      async () => {
        if (n++ < 2)
          throw new ProviderError('rate_limit', 'slow down', { status: 429, retryAfterMs: n === 1 ? 5 : 999_999 });
        return 'ok';
      },
      { classify, retry: { maxRetryAfterMs: 10, onRetry: (i) => delays.push(i.delayMs) } },
    );
    expect(r).toBe('ok');
    expect(delays).toEqual([5, 10]);
  });

  it('does not retry once output started', async () => {
    let n = 0;
    const err = await callWithRetry(
      async (ctx) => {
        n++;
        ctx.outputStarted();
        throw new ModelError('transport', 'socket hang up');
      },
      { classify, retry: { baseDelayMs: 1 } },
    ).catch((e: unknown) => e);
    expect(n).toBe(1);
    expect(err).toMatchObject({ modelKind: 'transport' });
  });

  it('does not retry kernel bugs', async () => {
    let n = 0;
    await expect(
      callWithRetry(
        async () => {
          n++;
          throw new QitosError('internal', 'bug');
        },
        { classify, retry: { baseDelayMs: 1 } },
      ),
    ).rejects.toMatchObject({ kind: 'internal' });
    expect(n).toBe(1);
  });

  it('keeps a default for a retry option given as undefined, and rejects a limit that is not a count', async () => {
    let n = 0;
    const failing = async () => {
      n++;
      throw new ModelError('server', 'down');
    };
    await expect(
      callWithRetry(failing, { classify, retry: { maxRetries: undefined, baseDelayMs: 1 } }),
    ).rejects.toMatchObject({ modelKind: 'server' });
    expect(n).toBe(3); // the default: 2 retries
    n = 0;
    await expect(callWithRetry(failing, { classify, retry: { maxRetries: Number.NaN } })).rejects.toThrow(
      /retry.maxRetries must be an integer >= 0, got NaN/,
    );
    expect(n).toBe(0);
  });

  it('fails at once, as aborted, when the signal is already aborted', async () => {
    let n = 0;
    const ctl = new AbortController();
    ctl.abort();
    await expect(callWithRetry(async () => n++, { classify, signal: ctl.signal })).rejects.toMatchObject({
      modelKind: 'aborted',
    });
    expect(n).toBe(0);
  });
});
