import type { ModelResponse, StreamListener } from '../core/index.js';
import { ModelError, QitosError } from '../core/index.js';
import { consumeStream, type SdkStream } from './consume-stream.js';
import { ResponseBuilder } from './response-builder.js';

/** What one provider tells `streamReply` about its wire protocol. */
export interface StreamReplySpec<Chunk> {
  signal?: AbortSignal;
  onEvent?: StreamListener;
  /** Sends the request and returns the SDK's stream of chunks. */
  open(signal: AbortSignal | undefined): Promise<SdkStream<Chunk>>;
  /** Feeds one chunk into the builder. */
  onChunk(chunk: Chunk, builder: ResponseBuilder): void;
  /** After the last chunk: checks the stream ended properly and builds the response. */
  finish(builder: ResponseBuilder): ModelResponse;
  /** Turns an SDK or stream error into a classified ModelError. */
  classify(err: unknown): ModelError;
  /** Prefix of the error when a chunk handler fails (our bug, not the provider's). */
  failure: string;
}

/**
 * One attempt of a streamed model call, the part every provider shares: open the stream, hand each chunk to
 * the provider's handler with a ResponseBuilder (waiting between chunks for a slow listener), check the end,
 * and turn what fails into a classified ModelError. A bug in our own chunk handling stays an internal error.
 * Retries and timeouts are not here: they are middleware (`retryMiddleware`).
 */
export async function streamReply<Chunk>(spec: StreamReplySpec<Chunk>): Promise<ModelResponse> {
  try {
    const stream = await spec.open(spec.signal);
    const builder = new ResponseBuilder(spec.onEvent);
    await consumeStream(stream, (chunk) => spec.onChunk(chunk, builder), spec.failure, builder.settle);
    // SDK streams end quietly when their signal aborts: an aborted attempt must not pass for a finished one.
    if (spec.signal?.aborted) throw spec.signal.reason;
    const response = spec.finish(builder);
    const last = builder.settle();
    if (last) await last;
    return response;
  } catch (err) {
    if (QitosError.isInstance(err) && !ModelError.isInstance(err)) throw err;
    throw spec.classify(err);
  }
}
