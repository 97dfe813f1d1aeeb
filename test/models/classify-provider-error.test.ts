import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../../src/core/index.js';
import { classifyProviderError, isContextOverflowText } from '../../src/models/index.js';

const apiError = (status: number | undefined, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  OpenAI.APIError.generate(status, { error: body }, undefined, status === undefined ? undefined : new Headers(headers));

describe('classifyProviderError', () => {
  const kind = (e: unknown) => classifyProviderError(e, 'test', OpenAI).modelKind;

  it('maps statuses onto kinds', () => {
    expect(kind(apiError(429, { message: 'Rate limit reached for requests' }))).toBe('rate_limit');
    expect(kind(apiError(500, { message: 'oops' }))).toBe('server');
    expect(kind(apiError(503, { message: 'unavailable' }))).toBe('server');
    expect(kind(apiError(408, { message: 'timeout' }))).toBe('timeout');
    expect(kind(apiError(401, { message: 'bad key' }))).toBe('auth');
    expect(kind(apiError(403, { message: 'forbidden' }))).toBe('auth');
    expect(kind(apiError(404, { message: 'model not found' }))).toBe('bad_request');
    expect(kind(apiError(422, { message: 'unprocessable' }))).toBe('bad_request');
  });

  it('an exhausted quota is not retried, and a tokens-per-minute 429 is a rate limit, not an overflow', () => {
    const quota = classifyProviderError(
      apiError(429, { message: 'You exceeded your current quota', code: 'insufficient_quota' }),
      't',
      OpenAI,
    );
    expect(quota.modelKind).toBe('auth');
    expect(quota.retryable).toBe(false);
    expect(kind(apiError(429, { message: 'Too many tokens per minute, please slow down' }))).toBe('rate_limit');
  });

  it('keeps the retry-after hint', () => {
    expect(classifyProviderError(apiError(429, { message: 'x' }, { 'retry-after': '3' }), 't', OpenAI)).toMatchObject({
      retryAfterMs: 3000,
    });
  });

  it('classifies connection failures and foreign errors as transport', () => {
    expect(kind(new OpenAI.APIConnectionError({ message: 'ECONNREFUSED' }))).toBe('transport');
    expect(kind(new OpenAI.APIConnectionTimeoutError())).toBe('timeout');
    expect(kind(new TypeError('terminated'))).toBe('transport');
    expect(kind(new OpenAI.APIUserAbortError())).toBe('aborted');
  });

  it('an endpoint that cannot be reached is its own kind, named with the URL and the system error', () => {
    const sys = (code: string) =>
      new OpenAI.APIConnectionError({
        message: 'Connection error.',
        cause: Object.assign(new TypeError('fetch failed'), {
          cause: Object.assign(new Error(`connect ${code}`), { code }),
        }),
      });
    const at = (code: string) => classifyProviderError(sys(code), 'vllm:x', OpenAI, 'http://127.0.0.1:9/v1');
    expect(at('ECONNREFUSED')).toMatchObject({ modelKind: 'unreachable', kind: 'model_request', retryable: true });
    expect(at('ECONNREFUSED').message).toBe(
      'vllm:x: cannot reach http://127.0.0.1:9/v1: connection refused: is the server running on that host and port? (ECONNREFUSED)',
    );
    expect(at('ENOTFOUND').message).toMatch(/does not resolve \(DNS\) \(ENOTFOUND\)/);
    expect(at('UNABLE_TO_VERIFY_LEAF_SIGNATURE').message).toMatch(/TLS failed: .*\(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/);
    // A connection cut after it was made stays transport: the next step may well get through.
    expect(at('ECONNRESET')).toMatchObject({ modelKind: 'transport', kind: 'model_transport' });
    expect(at('ECONNRESET').message).toMatch(/connection failed \(http:\/\/127\.0\.0\.1:9\/v1\)/);
  });

  it('classifies error frames without a status by their type', () => {
    // What the SDK throws for an `error` frame inside a stream.
    const frame = (body: Record<string, unknown>) => new OpenAI.APIError(undefined, body, undefined, undefined);
    expect(kind(frame({ message: 'x', type: 'invalid_request_error' }))).toBe('bad_request');
    expect(kind(frame({ message: 'x', type: 'overloaded_error' }))).toBe('server');
    expect(kind(frame({ message: 'x', type: 'rate_limit_error' }))).toBe('rate_limit');
    expect(kind(frame({ message: 'prompt is too long', type: 'invalid_request_error' }))).toBe('context_overflow');
  });

  it('passes a ModelError through', () => {
    const e = new ModelError('timeout', 't');
    expect(classifyProviderError(e, 't', OpenAI)).toBe(e);
  });
});

describe('isContextOverflowText', () => {
  it.each([
    "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
    'prompt is too long: 210000 tokens > 200000 maximum',
    'context_length_exceeded',
    'Input exceeds the context window of this model',
    'the request exceeds the available context size, try increasing it',
    'Please reduce the length of the messages.',
    'input is too long for requested model',
  ])('recognises %j', (text) => expect(isContextOverflowText(text)).toBe(true));

  it.each(['Rate limit reached', 'Invalid value for temperature', 'model not found', 'Incorrect API key provided'])(
    'does not flag %j',
    (text) => expect(isContextOverflowText(text)).toBe(false),
  );
});
