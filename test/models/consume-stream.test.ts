import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QitosError } from '../../src/core/index.js';
import { consumeStream, type SdkStream } from '../../src/models/consume-stream.js';

/** A stream like the SDKs': yields `items`, then throws `failWith` if given; records whether its request was aborted. */
function sdkStream<T>(items: T[], failWith?: Error): SdkStream<T> & { finished: () => boolean } {
  const controller = new AbortController();
  let finished = false;
  async function* gen(): AsyncGenerator<T> {
    try {
      for (const item of items) yield item;
      if (failWith) throw failWith;
    } finally {
      finished = true;
    }
  }
  return { controller, [Symbol.asyncIterator]: () => gen(), finished: () => finished };
}

describe('consumeStream', () => {
  it('hands every item to the handler in order and leaves a completed stream un-aborted', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer()), async (items) => {
        const stream = sdkStream(items);
        const seen: number[] = [];
        await consumeStream(stream, (n) => seen.push(n), 'm: failed');
        expect(seen).toEqual(items);
        expect(stream.controller.signal.aborted).toBe(false);
      }),
    );
  });

  it('turns a handler bug into an internal QitosError with the cause, stops reading and aborts the request', async () => {
    const stream = sdkStream([1, 2, 3]);
    const bug = new TypeError('x is undefined');
    const seen: number[] = [];
    const err = await consumeStream(
      stream,
      (n) => {
        seen.push(n);
        if (n === 2) throw bug;
      },
      'openai:m: failed to handle a stream chunk',
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QitosError);
    expect((err as QitosError).kind).toBe('internal');
    expect((err as QitosError).message).toBe('openai:m: failed to handle a stream chunk: x is undefined');
    expect((err as QitosError).cause).toBe(bug);
    expect(seen).toEqual([1, 2]);
    expect(stream.controller.signal.aborted).toBe(true);
  });

  it('passes an error of the stream itself through unchanged (for the retry layer to classify) and aborts', async () => {
    const socket = new Error('socket hang up');
    const stream = sdkStream(['a'], socket);
    const seen: string[] = [];
    await expect(consumeStream(stream, (s) => seen.push(s), 'm: failed')).rejects.toBe(socket);
    expect(seen).toEqual(['a']);
    expect(stream.controller.signal.aborted).toBe(true);
    expect(stream.finished()).toBe(true);
  });
});
