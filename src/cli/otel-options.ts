import type { Command } from 'commander';

/** Adds `--otel <endpoint>` and `--otel-content` (live OpenTelemetry export) to a command that runs agents. */
export function withOtelOptions(command: Command): Command {
  return command
    .option(
      '--otel <endpoint>',
      'export the runs live to this OpenTelemetry collector (OTLP/HTTP, e.g. http://localhost:4318)',
    )
    .option(
      '--otel-content',
      'put message content (prompts, replies, tool arguments and results) on the exported spans',
    );
}
