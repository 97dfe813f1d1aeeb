import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Manifest, RunTap } from '../../core/index.js';
import { errorMessage } from '../../core/index.js';
import type { OtlpEndpoint } from './otlp-endpoint.js';
import type { RunSpans } from './run-spans.js';

/** What the span builder needs: all plain data, so it crosses to the export worker as it is. */
export interface SdkSpanTapConfig {
  endpoint: OtlpEndpoint;
  /** `service.name` of the spans' resource. */
  serviceName: string;
  /** Message content on spans (opt-in). */
  content: boolean;
  /** Spans held for export at most: past it new spans are dropped, never waited for. */
  maxQueueSize: number;
  /** How often queued spans are sent, in ms. */
  scheduledDelayMs: number;
}

/** The span builder: runs opened by their first manifest, then fed their records; flushed and shut down. */
export interface SdkSpanTap {
  open(manifest: Manifest): RunTap;
  /** Sends every span ended so far (bounded by the export timeout). */
  flush(): Promise<void>;
  /** Flushes and stops (bounded by the export timeout). */
  shutdown(): Promise<void>;
}

/**
 * Builds a run's spans with the official OpenTelemetry SDK (`RunSpans`) and exports them through a batch span
 * processor with a bounded queue over OTLP/HTTP. It runs in the export worker (`otlp-worker.ts`), so none of this
 * costs the run's thread; `report` gets every failure (the caller tells only the first).
 */
export async function sdkSpanTap(config: SdkSpanTapConfig, report: (line: string) => void): Promise<SdkSpanTap> {
  const { endpoint } = config;
  const [{ BasicTracerProvider, BatchSpanProcessor }, { resourceFromAttributes, defaultResource }, spans] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/resources'),
      import('./run-spans.js'),
    ]);
  const exporter = reportingExporter(await otlpExporter(endpoint), endpoint.url, report);
  const provider = new BasicTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': config.serviceName })),
    spanProcessors: [
      new BatchSpanProcessor(exporter, {
        maxQueueSize: config.maxQueueSize,
        maxExportBatchSize: Math.min(512, config.maxQueueSize),
        scheduledDelayMillis: config.scheduledDelayMs,
        exportTimeoutMillis: endpoint.timeoutMs,
      }),
    ],
  });
  const tracer = provider.getTracer('qitos-ts');
  const open = new Map<string, RunSpans>();
  const spanOptions = { content: config.content };
  const bounded = (work: Promise<void>) => withTimeout(work, endpoint.timeoutMs + 1000, endpoint.url, report);
  return {
    open(manifest: Manifest): RunTap {
      const parent = manifest.parent?.kind === 'subtask' ? open.get(manifest.parent.runId) : undefined;
      const run = new spans.RunSpans(tracer, manifest, parent?.spanContext, spanOptions);
      open.set(manifest.runId, run);
      return {
        event: (rec) => run.event(rec),
        step: (rec) => run.step(rec),
        finish: (last) => {
          open.delete(manifest.runId);
          run.finish(last);
        },
      };
    },
    flush: () => bounded(provider.forceFlush()),
    shutdown: () => bounded(provider.shutdown()),
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

/** Waits for `work` at most `ms`; past that, says so through `report` and resolves (spans still queued are lost). */
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
