import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cappedFetch, McpMessageTooLargeError } from '../../../src/kit/mcp/index.js';

/** A fetch that answers with `body`, delivered in the given chunks. */
function fakeFetch(chunks: string[], status = 200): (url: string | URL) => Promise<Response> {
  return async () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(c) {
          for (const ch of chunks) c.enqueue(new TextEncoder().encode(ch));
          c.close();
        },
      }),
      { status, headers: { 'content-type': 'text/event-stream' } },
    );
}

/** Independent oracle: the body cut after each empty line (a line of only `\r`s); the longest piece. */
function longestEvent(body: string): number {
  return Math.max(0, ...body.split(/(?<=(?:^|\n)\r*\n)/).map((s) => s.length));
}

async function read(fetchFn: (url: string) => Promise<Response>): Promise<string> {
  return (await fetchFn('http://x')).text();
}

describe('cappedFetch', () => {
  it('errors exactly when one message (event) exceeds the limit, however the body is cut into chunks', async () => {
    const body = fc.string({ unit: fc.constantFrom('a', 'b', '\n', '\r'), maxLength: 80 });
    await fc.assert(
      fc.asyncProperty(
        body,
        fc.integer({ min: 1, max: 30 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        async (text, max, cuts) => {
          const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
          const chunks = [0, ...points].map((p, i, all) => text.slice(p, all[i + 1] ?? text.length)).filter(Boolean);
          let tooLarge: McpMessageTooLargeError | undefined;
          const f = cappedFetch(max, (e) => (tooLarge = e), fakeFetch(chunks));
          const shouldFail = longestEvent(text) > max;
          if (shouldFail) {
            await expect(read(f)).rejects.toBeInstanceOf(McpMessageTooLargeError);
            expect(tooLarge?.limit).toBe(max);
          } else {
            expect(await read(f)).toBe(text);
            expect(tooLarge).toBeUndefined();
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('passes bodiless responses through and names the limit in its error', async () => {
    const f = cappedFetch(
      1,
      () => undefined,
      async () => new Response(null, { status: 204 }),
    );
    expect((await f('http://x')).status).toBe(204);
    expect(new McpMessageTooLargeError(10).message).toBe(
      'the server sent a message larger than 10 bytes (the maxMessageBytes limit)',
    );
  });
});
