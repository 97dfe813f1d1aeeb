import type { Command } from 'commander';
import { ioOf } from '../io.js';
import type { TraceExportFlags } from './command-flags.js';

/** `qitos trace export <trace...> --otlp <endpoint>`: recorded runs as OpenTelemetry spans, with their recorded times. */
export function registerTraceCommand(program: Command): void {
  const trace = program.command('trace').description('work with recorded traces');
  trace
    .command('export')
    .description(
      'send recorded runs (and their sub-runs) to an OpenTelemetry collector as GenAI spans with their recorded times',
    )
    .argument('<trace...>', 'trace folders')
    .option(
      '--otlp <endpoint>',
      'the collector (OTLP/HTTP base URL, e.g. http://localhost:4318, or its /v1/traces URL; default: OTEL_EXPORTER_OTLP_ENDPOINT)',
    )
    .option('--protocol <protocol>', 'http/protobuf (default) or http/json')
    .option('--content', 'put message content (prompts, replies, tool arguments and results) on the spans')
    .option('--service-name <name>', 'service.name of the spans (default: OTEL_SERVICE_NAME, else qitos)')
    .option('--json', 'print what was sent as JSON')
    .addHelpText(
      'after',
      '\nExample:\n  $ qitos trace export traces/20250101T120000-abc123 --otlp ' +
        'http://localhost:4318\n  $ qitos trace export traces/* --otlp ' +
        'https://collector.example/v1/traces --protocol http/json\n',
    )
    .action(async function (this: Command, traces: string[], flags: TraceExportFlags) {
      const { traceExportAction } = await import('./trace-export-action.js');
      await traceExportAction(ioOf(this), traces, flags);
    });
}
