import { EXIT_BAD_INPUT } from './exit-codes.js';

/**
 * A user error (bad input, missing file, not a trace): the CLI prints its one-line message and exits
 * with `exitCode` (2, bad input, unless said otherwise), without a stack trace unless QITOS_DEBUG is set.
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = EXIT_BAD_INPUT,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CliError';
  }
}
