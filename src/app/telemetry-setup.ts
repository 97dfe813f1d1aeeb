import type { TraceTap } from '../core/index.js';
import { otlpTap, type OtlpTap } from '../trace/index.js';
import { AppError } from './app-error.js';
import type { QitosConfig } from './config-schema.js';
import type { AppIO } from './app-io.js';

/**
 * Whether a command exports its runs live: `telemetry.enabled` when set (`--otel` sets it), else when the config
 * names an endpoint or the environment does (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`);
 * `OTEL_SDK_DISABLED=true` turns the environment's default off.
 */
export function telemetryWanted(config: QitosConfig, env: Readonly<Record<string, string | undefined>>): boolean {
  const t = config.telemetry;
  if (t?.enabled !== undefined) return t.enabled;
  if (t?.endpoint) return true;
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === 'true') return false;
  return !!(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * The command's OpenTelemetry tap, or undefined when it does not export. The export headers' values (the config's
 * and the `OTEL_EXPORTER_OTLP_*HEADERS` ones: they often hold a token) join the command's redactor first, so no
 * trace, log line or span holds them. A failed export is told once on stderr; the runs go on.
 */
export async function commandTelemetry(io: AppIO, config: QitosConfig): Promise<OtlpTap | undefined> {
  if (!telemetryWanted(config, io.env)) return undefined;
  const t = config.telemetry ?? {};
  let tap: OtlpTap;
  try {
    tap = await otlpTap({
      ...(t.endpoint ? { endpoint: t.endpoint } : {}),
      ...(t.protocol ? { protocol: t.protocol } : {}),
      ...(t.headers ? { headers: t.headers } : {}),
      ...(t.timeoutMs ? { timeoutMs: t.timeoutMs } : {}),
      ...(t.serviceName ? { serviceName: t.serviceName } : {}),
      content: t.content ?? io.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.toLowerCase() === 'true',
      env: io.env,
      report: (line) => io.err(line + '\n'),
    });
  } catch (err) {
    throw new AppError(`telemetry: ${(err as Error).message}`);
  }
  io.redactor?.add(...Object.values(tap.endpoint.headers));
  return tap;
}

/** Runs `fn` with the command's tap (or none), then flushes what is left and stops it (bounded by its timeout). */
export async function withTelemetry<T>(
  io: AppIO,
  config: QitosConfig,
  fn: (tap: TraceTap | undefined) => Promise<T>,
): Promise<T> {
  const tap = await commandTelemetry(io, config);
  try {
    return await fn(tap);
  } finally {
    await tap?.shutdown();
  }
}
