/** The kinds RECOVER tells apart, and the only kinds a trace records for a failure (`summary.failures`, `recover`). */
const ERROR_KINDS = [
  'parse',
  'model_transport',
  'model_request',
  'context_overflow',
  'tool',
  'env',
  'aborted',
  'internal',
] as const;

/**
 * Error kinds RECOVER tells apart. `parse`, `model_transport`, `tool` and `env` errors are recoverable
 * (fed back to the model); `model_request` (a bad request the same call would repeat, or an endpoint that cannot
 * be reached), `context_overflow` and `internal` are not, unless a policy handles them.
 */
export type ErrorKind = (typeof ERROR_KINDS)[number];

/**
 * What a {@link QitosError} is about: one of RECOVER's {@link ErrorKind}s (a failure of a run's phase), or the
 * part of qitos-ts that refused something: `input` (the CLI's and the app's user errors), `config` (a model or
 * permission setting), `yaml`, `trace`, `workflow`, `skill`, `prompt` (a prompt variable), `expr` (an expression
 * or its regular expression), `edit` (a text edit that does not apply), `mcp`, `http` (the server's answers) and
 * `bench` (tau-bench's Python data and tools). RECOVER reads any kind that is not its own as `internal`.
 */
export type QitosErrorKind =
  | ErrorKind
  | 'input'
  | 'config'
  | 'yaml'
  | 'trace'
  | 'workflow'
  | 'skill'
  | 'prompt'
  | 'expr'
  | 'edit'
  | 'mcp'
  | 'http'
  | 'bench';

/** Where a class keeps the symbol its `isInstance` looks for (set by {@link markErrorClass}; read as an own key). */
const CLASS_MARKER = Symbol('qitos-ts error class marker');

/**
 * Gives an error class the marker its `isInstance` checks: the global symbol `qitos-ts.error.<name>`, the same in
 * every installed copy of qitos-ts, set on the class's prototype so every instance of it and of its subclasses
 * carries it. `name` is spelled out rather than read from the class, whose name a bundler may shorten.
 */
export function markErrorClass(cls: abstract new (...args: never[]) => QitosError, name: string): void {
  const marker = Symbol.for(`qitos-ts.error.${name}`);
  Object.defineProperty(cls.prototype, marker, { value: true });
  Object.defineProperty(cls, CLASS_MARKER, { value: marker });
}

/**
 * Base class of every error qitos-ts throws for its users to catch. `kind` says what it is about; RECOVER reads it
 * (through {@link classifyError}) to decide whether a failed phase is fed back to the model or ends the run.
 */
export class QitosError extends Error {
  static {
    markErrorClass(this, 'QitosError');
  }

  constructor(
    readonly kind: QitosErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'QitosError';
  }

  /**
   * Whether `err` is an instance of this class, also when it was made by another installed copy of qitos-ts (a
   * CLI installed globally running a project's agent, two versions under one `node_modules`), where `instanceof`
   * is false: `ParseError.isInstance(err)`, `TraceError.isInstance(err)`. For a subclass of your own that has no
   * marker, this is `instanceof`.
   */
  static isInstance<T extends QitosError>(this: abstract new (...args: never[]) => T, err: unknown): err is T {
    const marker = Object.getOwnPropertyDescriptor(this, CLASS_MARKER)?.value as symbol | undefined;
    if (marker === undefined) return err instanceof this;
    return typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[marker] === true;
  }
}

/** A model reply that could not be turned into a Decision. The message tells the model how to fix its output. */
export class ParseError extends QitosError {
  static {
    markErrorClass(this, 'ParseError');
  }

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
  static {
    markErrorClass(this, 'ModelError');
  }

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
  static {
    markErrorClass(this, 'EnvError');
  }

  constructor(message: string, options?: { cause?: unknown }) {
    super('env', message, options);
    this.name = 'EnvError';
  }
}

/** The run was aborted through its signal. */
export class AbortedError extends QitosError {
  static {
    markErrorClass(this, 'AbortedError');
  }

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
  static {
    markErrorClass(this, 'TimeBudgetError');
  }

  constructor(readonly maxSeconds: number) {
    super(`time budget of ${maxSeconds}s reached`);
    this.name = 'TimeBudgetError';
  }
}

/**
 * RECOVER's kind of an error: the kind of a QitosError (of any installed copy) when it is one RECOVER tells apart,
 * else undefined (a QitosError of another kind, anything else).
 */
function recoverKindOf(err: unknown): ErrorKind | undefined {
  if (!QitosError.isInstance(err)) return undefined;
  return (ERROR_KINDS as readonly string[]).includes(err.kind) ? (err.kind as ErrorKind) : undefined;
}

/**
 * Classifies anything thrown into an ErrorKind. Errors outside RECOVER's kinds (a TraceError, a YamlError, a plain
 * Error) are `internal`: a run that meets one has a bug or a broken input no retry fixes.
 */
export function classifyError(err: unknown): ErrorKind {
  const kind = recoverKindOf(err);
  if (kind) return kind;
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
 * The stack trace of a bug: an Error that RECOVER does not classify (the classified ones carry their own message
 * and their stack points into the kernel), with the stacks of its causes. Undefined for anything else.
 */
export function bugStack(err: unknown): string | undefined {
  if (!(err instanceof Error) || recoverKindOf(err) || typeof err.stack !== 'string') return undefined;
  const parts: string[] = [];
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    parts.push((depth ? 'caused by: ' : '') + (e.stack ?? `${e.name}: ${e.message}`));
  }
  const text = parts.join('\n');
  return text.length > MAX_STACK ? `${text.slice(0, MAX_STACK)}\n    ... (stack cut at ${MAX_STACK} characters)` : text;
}
