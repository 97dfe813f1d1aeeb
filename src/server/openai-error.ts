import { QitosError, markErrorClass } from '../core/index.js';
/** The error body OpenAI's API answers with, which the `openai` SDK reads into `APIError`. */
export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** An error a route answers with: HTTP status plus the OpenAI-style body, and extra headers (`retry-after`). */
export class HttpError extends QitosError {
  static {
    markErrorClass(this, 'HttpError');
  }

  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 500 | 503,
    message: string,
    readonly type: string,
    readonly code: string | null = null,
    readonly param: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super('http', message);
    this.name = 'HttpError';
  }

  /** The JSON body. */
  body(): OpenAIErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** 400 for a request the server cannot use: bad JSON, a wrong field (`param` names it). */
export function invalidRequest(message: string, param: string | null = null, code: string | null = null): HttpError {
  return new HttpError(400, message, 'invalid_request_error', code, param);
}
