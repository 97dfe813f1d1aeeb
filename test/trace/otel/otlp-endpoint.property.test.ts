import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_OTLP_TIMEOUT_MS, resolveOtlpEndpoint } from '../../../src/trace/index.js';

describe('resolveOtlpEndpoint', () => {
  it('any header list written as OTEL_EXPORTER_OTLP_HEADERS (k=v,..., URL-encoded) reads back as the same headers (property)', () => {
    const key = fc.oneof(
      fc.string({ minLength: 1, maxLength: 12 }).filter((k) => k.trim() === k && k.length > 0),
      fc.constant('__proto__'),
    );
    fc.assert(
      fc.property(fc.dictionary(key, fc.string({ maxLength: 20 }), { maxKeys: 5 }), (headers) => {
        const text = Object.entries(headers)
          .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
          .join(',');
        const resolved = resolveOtlpEndpoint({}, { OTEL_EXPORTER_OTLP_HEADERS: text });
        expect(resolved.headers).toEqual(headers);
      }),
    );
  });

  it('takes the explicit endpoint, else the traces variable as is, else the base variable plus /v1/traces, else localhost', () => {
    expect(resolveOtlpEndpoint({ endpoint: 'http://c:4318' }, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x' }).url).toBe(
      'http://c:4318/v1/traces',
    );
    expect(resolveOtlpEndpoint({ endpoint: 'https://c/otlp/v1/traces' }, {}).url).toBe('https://c/otlp/v1/traces');
    expect(
      resolveOtlpEndpoint(
        {},
        { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://t/custom', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x' },
      ).url,
    ).toBe('https://t/custom');
    expect(resolveOtlpEndpoint({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:1/base/' }).url).toBe(
      'http://x:1/base/v1/traces',
    );
    const d = resolveOtlpEndpoint({}, {});
    expect(d).toEqual({
      url: 'http://localhost:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      timeoutMs: DEFAULT_OTLP_TIMEOUT_MS,
    });
    expect(
      resolveOtlpEndpoint({}, { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TIMEOUT: '250' }),
    ).toMatchObject({
      protocol: 'http/json',
      timeoutMs: 250,
    });
  });

  it(
    'names what is wrong: an unsupported protocol, a URL that is not http(s), a bad timeout, ' +
      'a header without = (without quoting it)',
    () => {
      expect(() => resolveOtlpEndpoint({}, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/"grpc" is not supported/);
      expect(() => resolveOtlpEndpoint({}, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://x' })).toThrow(
        /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http/,
      );
      expect(() => resolveOtlpEndpoint({ endpoint: 'not a url' }, {})).toThrow(/the OTLP endpoint is not a URL/);
      expect(() => resolveOtlpEndpoint({}, { OTEL_EXPORTER_OTLP_TIMEOUT: 'soon' })).toThrow(/timeout/);
      let message = '';
      try {
        resolveOtlpEndpoint({}, { OTEL_EXPORTER_OTLP_HEADERS: 'a=1,Bearer-secret-token-xyz' });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toBe('OTEL_EXPORTER_OTLP_HEADERS: item 2 is not key=value');
      expect(() => resolveOtlpEndpoint({}, { OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'k=%E0%A4%A' })).toThrow(
        'OTEL_EXPORTER_OTLP_TRACES_HEADERS: item 1 is not URL-encoded',
      );
    },
  );
});
