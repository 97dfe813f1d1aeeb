import { resolve } from 'node:path';
import { exportTraces, otlpTap, TraceError, type OtlpTap } from '../../trace/index.js';
import { AppError } from '../../app/app-error.js';
import { EXIT_FAILED } from '../../app/exit-codes.js';
import type { CliIO } from '../io.js';
import type { TraceExportFlags } from './command-flags.js';

/** Records and spans `qitos trace export` may hold for export (live export holds 2048). */
const EXPORT_QUEUE = 1_000_000;

/**
 * What `qitos trace export` does: reads each trace folder (and its child traces) and sends its runs through an OTLP
 * tap, as live export would have, with the recorded times. The records pass through the command's redactor too
 * (a trace from elsewhere was redacted by another machine's secrets, if any). A collector that fails is reported
 * once and the command exits 1.
 */
export async function traceExportAction(io: CliIO, traces: string[], flags: TraceExportFlags): Promise<void> {
  let failure: string | undefined;
  let tap: OtlpTap;
  try {
    tap = await otlpTap({
      ...(flags.otlp ? { endpoint: flags.otlp } : {}),
      ...(flags.protocol ? { protocol: flags.protocol } : {}),
      ...(flags.serviceName ? { serviceName: flags.serviceName } : {}),
      content: flags.content ?? false,
      // the traces are read whole into memory anyway, and fed faster than spans are made: a queue that bounded
      // them would only drop records of a long trace
      maxQueueSize: EXPORT_QUEUE,
      env: io.env,
      ...(io.redactor ? { redactor: io.redactor } : {}),
      report: (line) => {
        failure = line;
        io.err(line + '\n');
      },
    });
  } catch (err) {
    throw new AppError(`trace export: ${(err as Error).message}`);
  }
  io.redactor?.add(...Object.values(tap.endpoint.headers));
  let runs = 0;
  try {
    runs = await exportTraces(
      traces.map((t) => resolve(io.cwd, t)),
      tap,
    );
  } catch (err) {
    if (TraceError.isInstance(err)) throw new AppError(err.message);
    throw err;
  } finally {
    await tap.shutdown();
  }
  const url = tap.endpoint.url;
  if (flags.json) io.out(JSON.stringify({ runs, endpoint: url, ok: failure === undefined }, null, 2) + '\n');
  else if (!failure) io.out(`exported ${runs} run${runs === 1 ? '' : 's'} to ${url}\n`);
  if (failure) io.exitCode = EXIT_FAILED;
}
