import { EXIT_BAD_INPUT } from './exit-codes.js';
import { QitosError, markErrorClass } from '../core/errors.js';

/**
 * A user error (bad input, missing file, not a trace): the CLI prints its one-line message and exits
 * with `exitCode` (2, bad input, unless said otherwise), without a stack trace unless QITOS_DEBUG is set.
 * `detail` (e.g. a unified diff of what differs) is printed below the line.
 */
export class AppError extends QitosError {
  static {
    markErrorClass(this, 'AppError');
  }

  readonly detail: string | undefined;

  constructor(
    message: string,
    readonly exitCode = EXIT_BAD_INPUT,
    options?: { cause?: unknown; detail?: string },
  ) {
    super('input', message, options);
    this.name = 'AppError';
    this.detail = options?.detail;
  }

  /** A AppError of a library error: its first line is the message, the lines after it the detail. */
  static of(err: unknown): AppError {
    if (AppError.isInstance(err)) return err;
    const text = err instanceof Error ? err.message : String(err);
    const nl = text.indexOf('\n');
    return new AppError(nl < 0 ? text : text.slice(0, nl), undefined, {
      cause: err,
      ...(nl < 0 ? {} : { detail: text.slice(nl + 1) }),
    });
  }
}
