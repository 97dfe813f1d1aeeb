import { ModelError, QitosError, errorMessage } from '../core/index.js';

/** A provider SDK's response stream: async-iterable, with the controller that aborts its HTTP request. */
export interface SdkStream<T> extends AsyncIterable<T> {
  readonly controller: AbortController;
}

/**
 * Reads `stream` to its end, passing each item to `handle`. Errors from the stream itself (SDK, socket,
 * abort) propagate unchanged so the provider can classify them, as does a ModelError thrown by `handle` (the
 * provider's verdict on an item that breaks the protocol); anything else `handle` throws is our bug, not the
 * provider's, and becomes an `internal` QitosError `"<failure>: <message>"` (never retried).
 * `settle`, when given, is awaited after each item before the next is read (a slow stream listener).
 * If reading stops before the end for any reason, the stream is aborted so the request does not linger.
 */
export async function consumeStream<T>(
  stream: SdkStream<T>,
  handle: (item: T) => void,
  failure: string,
  settle?: () => PromiseLike<unknown> | undefined,
): Promise<void> {
  const it = stream[Symbol.asyncIterator]();
  let complete = false;
  try {
    for (;;) {
      const r = await it.next();
      if (r.done) break;
      try {
        handle(r.value);
      } catch (err) {
        if (ModelError.isInstance(err)) throw err;
        throw new QitosError('internal', `${failure}: ${errorMessage(err)}`, { cause: err });
      }
      const wait = settle?.();
      if (wait) await wait;
    }
    complete = true;
  } finally {
    if (!complete) stream.controller.abort();
  }
}
