/**
 * A user error (bad input, missing file, not a trace): the CLI prints its one-line message and exits
 * with `exitCode`, without a stack trace.
 */
export class CliError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
    this.name = 'CliError';
  }
}
