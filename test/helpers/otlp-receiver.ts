import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

/**
 * The official OTLP protobuf definitions (opentelemetry-proto), compiled by the OpenTelemetry JS project into a
 * protobufjs module (`@opentelemetry/otlp-transformer` 0.52, installed as the dev dependency `otlp-proto-root`).
 */
interface ProtoType {
  decode(bytes: Uint8Array): unknown;
  encode(message: unknown): { finish(): Uint8Array };
  toObject(message: unknown, options: Record<string, unknown>): Record<string, unknown>;
  fromObject(object: unknown): unknown;
}
const root = createRequire(import.meta.url)('otlp-proto-root/build/src/generated/root.js') as {
  opentelemetry: {
    proto: {
      collector: { trace: { v1: { ExportTraceServiceRequest: ProtoType; ExportTraceServiceResponse: ProtoType } } };
    };
  };
};
const { ExportTraceServiceRequest, ExportTraceServiceResponse } = root.opentelemetry.proto.collector.trace.v1;

/** An attribute value as OTLP carries it, decoded: the field that is set says its type. */
export type OtlpValue =
  | { stringValue: string }
  | { intValue: string }
  | { doubleValue: number }
  | { boolValue: boolean }
  | { arrayValue: { values?: OtlpValue[] } };

/** One span as the receiver decoded it (ids in hex, times in ns as decimal strings). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, OtlpValue>;
  status: { code?: number; message?: string };
  events: Array<{ name: string; attributes: Record<string, OtlpValue> }>;
  resource: Record<string, OtlpValue>;
}

/** A local OTLP/HTTP collector: decodes every `/v1/traces` request (protobuf or JSON) with the official definitions. */
export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** Raw bodies received, as text (what a secret must not be in). */
  bodies: string[];
  requests: Array<{ contentType: string; headers: Record<string, string | string[] | undefined> }>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const contentType = String(req.headers['content-type'] ?? '');
      requests.push({ contentType, headers: req.headers });
      bodies.push(body.toString('latin1'));
      if (req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const json = contentType.includes('json');
      const message = json
        ? ExportTraceServiceRequest.fromObject(hexIdsToBase64(JSON.parse(body.toString('utf8'))))
        : ExportTraceServiceRequest.decode(body);
      spans.push(
        ...flatten(ExportTraceServiceRequest.toObject(message, { longs: String, bytes: String, defaults: false })),
      );
      if (json) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else
        res
          .writeHead(200, { 'content-type': 'application/x-protobuf' })
          .end(Buffer.from(ExportTraceServiceResponse.encode({}).finish()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

type Raw = Record<string, unknown>;
const hex = (b64: unknown) => (typeof b64 === 'string' ? Buffer.from(b64, 'base64').toString('hex') : '');
const attrs = (list: unknown): Record<string, OtlpValue> =>
  Object.fromEntries(((list as Raw[]) ?? []).map((a) => [a.key as string, a.value as OtlpValue]));

function flatten(request: Raw): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of (request.resourceSpans as Raw[]) ?? []) {
    const resource = attrs((rs.resource as Raw | undefined)?.attributes);
    for (const ss of (rs.scopeSpans as Raw[]) ?? [])
      for (const s of (ss.spans as Raw[]) ?? [])
        out.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId),
          name: s.name as string,
          kind: (s.kind as number) ?? 0,
          startTimeUnixNano: String(s.startTimeUnixNano),
          endTimeUnixNano: String(s.endTimeUnixNano),
          attributes: attrs(s.attributes),
          status: (s.status as ReceivedSpan['status']) ?? {},
          events: ((s.events as Raw[]) ?? []).map((e) => ({ name: e.name as string, attributes: attrs(e.attributes) })),
          resource,
        });
  }
  return out;
}

/** OTLP/JSON writes trace and span ids as hex (its one departure from protobuf's JSON mapping, which uses base64). */
function hexIdsToBase64(request: Raw): Raw {
  for (const rs of (request.resourceSpans as Raw[]) ?? [])
    for (const ss of (rs.scopeSpans as Raw[]) ?? [])
      for (const s of (ss.spans as Raw[]) ?? [])
        for (const k of ['traceId', 'spanId', 'parentSpanId'])
          if (typeof s[k] === 'string') s[k] = Buffer.from(s[k], 'hex').toString('base64');
  return request;
}
