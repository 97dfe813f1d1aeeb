/**
 * Error kinds RECOVER tells apart. `parse`, `model_transport`, `tool` and `env` errors are recoverable
 * (fed back to the model); `model_request` (a bad request the same call would repeat, or an endpoint that cannot
 * be reached), `context_overflow` and `internal` are not, unless a policy handles them.
 */
export type ErrorKind =
  'parse' | 'model_transport' | 'model_request' | 'context_overflow' | 'tool' | 'env' | 'aborted' | 'internal';

/** Base class of the kernel's classified errors. */
export class QitosError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'QitosError';
  }
}

/** A model reply that could not be turned into a Decision. The message tells the model how to fix its output. */
export class ParseError extends QitosError {
  constructor(
    message: string,
    readonly raw?: string,
  ) {
    super('parse', message);
    this.name = 'ParseError';
  }
}

/** Sub-kinds of model errors, from providers. */
export type ModelErrorKind =
  | 'transport'
  | 'unreachable'
  | 'rate_limit'
  | 'server'
  | 'timeout'
  | 'bad_request'
  | 'auth'
  | 'context_overflow'
  | 'aborted';

/**
 * Model error kinds that end a run once the model's own retries are spent. An endpoint that cannot be reached
 * (connection refused, unknown host, a TLS failure) stays so from one step to the next: feeding the failure back to
 * the model as RECOVER does would only spend the step budget on calls that cannot succeed.
 */
const ENDS_RUN: readonly ModelErrorKind[] = ['bad_request', 'auth', 'unreachable'];

/** A failed model call, classified. `retryable` tells whether the same call may succeed later. */
export class ModelError extends QitosError {
  constructor(
    readonly modelKind: ModelErrorKind,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(
      modelKind === 'context_overflow'
        ? 'context_overflow'
        : modelKind === 'aborted'
          ? 'aborted'
          : ENDS_RUN.includes(modelKind)
            ? 'model_request'
            : 'model_transport',
      message,
      options,
    );
    this.name = 'ModelError';
  }
  get retryable(): boolean {
    // An unreachable endpoint is retried with backoff (a local server may still be starting), then ends the run.
    return ['transport', 'unreachable', 'rate_limit', 'server', 'timeout'].includes(this.modelKind);
  }
}

/** An env failed in a way the agent may work around. */
export class EnvError extends QitosError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('env', message, options);
    this.name = 'EnvError';
  }
}

/** The run was aborted through its signal. */
export class AbortedError extends QitosError {
  constructor(message = 'run aborted') {
    super('aborted', message);
    this.name = 'AbortedError';
  }
}

/**
 * The run's time budget ran out while a step was in flight: the engine aborts the run with it, and the run ends
 * `budget_time` (not `interrupted`).
 */
export class TimeBudgetError extends AbortedError {
  constructor(readonly maxSeconds: number) {
    super(`time budget of ${maxSeconds}s reached`);
    this.name = 'TimeBudgetError';
  }
}

/** Classifies anything thrown into an ErrorKind (unknown errors are internal bugs). */
export function classifyError(err: unknown): ErrorKind {
  if (err instanceof QitosError) return err.kind;
  if (err instanceof Error && err.name === 'AbortError') return 'aborted';
  return 'internal';
}

/** A one-line message of anything thrown. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return typeof err === 'string' ? err : JSON.stringify(err);
}

/** At most this many characters of a stack are kept (a deep recursion must not bloat the manifest). */
const MAX_STACK = 8000;

/**
 * The stack trace of a bug: an Error that is not one of the kernel's classified errors (those carry their own
 * message and their stack points into the kernel), with the stacks of its causes. Undefined for anything else.
 */
export function bugStack(err: unknown): string | undefined {
  if (!(err instanceof Error) || err instanceof QitosError || typeof err.stack !== 'string') return undefined;
  const parts: string[] = [];
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    parts.push((depth ? 'caused by: ' : '') + (e.stack ?? `${e.name}: ${e.message}`));
  }
  const text = parts.join('\n');
  return text.length > MAX_STACK ? `${text.slice(0, MAX_STACK)}\n    ... (stack cut at ${MAX_STACK} characters)` : text;
}
