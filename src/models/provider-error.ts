import { ModelError, markErrorClass, type ModelErrorKind } from '../core/index.js';

/**
 * A ModelError raised by a provider, with what the retry layer needs: the server's `retry-after` wait and
 * the provider's request id. It is a ModelError, so RECOVER and policies treat it like any other.
 */
export class ProviderError extends ModelError {
  static {
    markErrorClass(this, 'ProviderError');
  }

  /** How long the server asked the client to wait before retrying, in ms. */
  readonly retryAfterMs?: number;
  /** The provider's request id, for support tickets. */
  readonly requestId?: string;

  constructor(
    kind: ModelErrorKind,
    message: string,
    options: { status?: number; cause?: unknown; retryAfterMs?: number; requestId?: string } = {},
  ) {
    super(kind, message, options.status, { cause: options.cause });
    this.name = 'ModelError';
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
    if (options.requestId) this.requestId = options.requestId;
  }
}
