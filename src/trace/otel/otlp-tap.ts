import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Manifest, Redactor, RunTap, TraceTap } from '../../core/index.js';
import { errorMessage } from '../../core/index.js';
import { resolveOtlpEndpoint, type OtlpEndpoint, type OtlpEndpointOptions } from './otlp-endpoint.js';
import type { RunSpans, RunSpanOptions } from './run-spans.js';

/** Options of `otlpTap`. */
export interface OtlpTapOptions extends OtlpEndpointOptions, RunSpanOptions {
  /** `service.name` of the spans' resource (default `OTEL_SERVICE_NAME`, else `qitos`). */
  serviceName?: string;
  /** Where `OTEL_*` variables are read from (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Told once, in one line, when an export first fails (the collector is unreachable, refuses the spans, or the
   * queue overflows); later failures are not told again. Default: a line on stderr.
   */
  report?: (line: string) => void;
  /** Spans held for export at most (default 2048): past it new spans are dropped, never waited for. */
  maxQueueSize?: number;
  /** How often queued spans are sent, in ms (default 1000). */
  scheduledDelayMs?: number;
  /** Applied to every record before it becomes spans (traces that were not redacted by this machine's run). */
  redactor?: Redactor;
}

/** A trace tap that sends runs to an OTLP collector as OpenTelemetry GenAI spans. */
export interface OtlpTap extends TraceTap {
  /** Where the spans go. */
  readonly endpoint: OtlpEndpoint;
  /** Sends every span ended so far (bounded by the export timeout). */
  flush(): Promise<void>;
  /** Flushes and stops; later runs are not exported. Bounded by the export timeout too. */
  shutdown(): Promise<void>;
}

/**
 * A trace tap (`TraceOptions.tap`) that exports runs live over OTLP/HTTP (protobuf or JSON) as spans in the
 * OpenTelemetry GenAI semantic conventions: an `invoke_agent` span per run, a `chat` span per model call, an
 * `execute_tool` span per tool call, a traced sub-run's run span under its parent's. Built on the official SDK: a
 * batch span processor with a bounded queue sends spans in the background, so a slow or unreachable collector
 * never slows or fails a run; the first failure is reported once (`report`). Call `shutdown()` when the runs are
 * done. The OpenTelemetry packages are loaded by this call, so code that never exports never loads them.
 */
export async function otlpTap(options: OtlpTapOptions = {}): Promise<OtlpTap> {
  const env = options.env ?? process.env;
  const endpoint = resolveOtlpEndpoint(options, env);
  const [{ BasicTracerProvider, BatchSpanProcessor }, { resourceFromAttributes, defaultResource }, spans] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/resources'),
      import('./run-spans.js'),
    ]);
  const inner = await otlpExporter(endpoint);
  const report = once(options.report ?? ((line: string) => process.stderr.write(line + '\n')));
  const exporter = reportingExporter(inner, endpoint.url, report);
  const provider = new BasicTracerProvider({
    resource: defaultResource().merge(
      resourceFromAttributes({ 'service.name': options.serviceName ?? env.OTEL_SERVICE_NAME ?? 'qitos' }),
    ),
    spanProcessors: [
      new BatchSpanProcessor(exporter, {
        maxQueueSize: options.maxQueueSize ?? 2048,
        maxExportBatchSize: Math.min(512, options.maxQueueSize ?? 2048),
        scheduledDelayMillis: options.scheduledDelayMs ?? 1000,
        exportTimeoutMillis: endpoint.timeoutMs,
      }),
    ],
  });
  const tracer = provider.getTracer('qitos-ts');
  const open = new Map<string, RunSpans>();
  const spanOptions: RunSpanOptions = { content: options.content ?? false };
  const clean = <T>(value: T): T => (options.redactor ? options.redactor.redactValue(value) : value);
  let stopped = false;
  const bounded = (work: Promise<void>) => withTimeout(work, endpoint.timeoutMs + 1000, endpoint.url, report);
  return {
    endpoint,
    open(first: Manifest): RunTap | undefined {
      if (stopped) return undefined;
      const manifest = clean(first);
      const parent = manifest.parent?.kind === 'subtask' ? open.get(manifest.parent.runId) : undefined;
      const run = new spans.RunSpans(tracer, manifest, parent?.spanContext, spanOptions);
      open.set(manifest.runId, run);
      return {
        event: (rec) => run.event(clean(rec)),
        step: (rec) => run.step(clean(rec)),
        finish: (last) => {
          open.delete(manifest.runId);
          run.finish(clean(last));
        },
      };
    },
    flush: () => bounded(provider.forceFlush()),
    shutdown: () => {
      stopped = true;
      return bounded(provider.shutdown());
    },
  };
}

/** The official OTLP/HTTP trace exporter for the endpoint's protocol. */
async function otlpExporter(endpoint: OtlpEndpoint): Promise<SpanExporter> {
  const config = { url: endpoint.url, headers: endpoint.headers, timeoutMillis: endpoint.timeoutMs };
  if (endpoint.protocol === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter(config);
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter(config);
}

/** `report`, called at most once: the first failure is told, later ones are not. */
function once(report: (line: string) => void): (line: string) => void {
  let told = false;
  return (line) => {
    if (told) return;
    told = true;
    report(line);
  };
}

/** The exporter, telling `report` when an export fails. */
function reportingExporter(inner: SpanExporter, url: string, report: (line: string) => void): SpanExporter {
  const tell = (why: string) =>
    report(`qitos: OpenTelemetry export to ${url} failed (${why}); runs go on, later failures are not reported`);
  return {
    export(spans: ReadableSpan[], done) {
      inner.export(spans, (result) => {
        if (result.code !== 0) tell(result.error ? errorMessage(result.error) : 'the collector refused the spans');
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

/** Waits for `work` at most `ms`; past that, says so once through `report` and resolves (spans still queued are lost). */
function withTimeout(work: Promise<void>, ms: number, url: string, report: (line: string) => void): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      report(`qitos: OpenTelemetry export to ${url} did not finish within ${ms} ms; the spans not sent are dropped`);
      resolve();
    }, ms);
    timer.unref();
  });
  return Promise.race([
    work.then(
      () => undefined,
      (err: unknown) => report(`qitos: OpenTelemetry export to ${url} failed (${errorMessage(err)})`),
    ),
    late,
  ]).finally(() => clearTimeout(timer));
}
