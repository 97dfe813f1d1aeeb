import { QitosError, markErrorClass } from '../../core/index.js';

/** A message from an MCP server was larger than the configured limit. */
export class McpMessageTooLargeError extends QitosError {
  static {
    markErrorClass(this, 'McpMessageTooLargeError');
  }

  constructor(readonly limit: number) {
    super('mcp', `the server sent a message larger than ${limit} bytes (the maxMessageBytes limit)`);
    this.name = 'McpMessageTooLargeError';
  }
}

// statuses whose Response may not carry a body
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * Wraps `fetch` so no single message of an HTTP MCP server can exceed `maxBytes`: a JSON body counts whole,
 * an event stream counts per event (the bytes since the last blank line). Past the limit the body errors
 * with McpMessageTooLargeError, which the SDK's transport turns into a failed request. Also notes the error
 * in `onTooLarge`, because the transport may report it only as a generic failure.
 */
export function cappedFetch(
  maxBytes: number,
  onTooLarge: (e: McpMessageTooLargeError) => void,
  base: Fetch = fetch,
): Fetch {
  return async (url, init) => {
    const res = await base(url, init);
    if (!res.body || NULL_BODY.has(res.status)) return res;
    let sinceEvent = 0;
    let lineLength = 0;
    const limit = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        for (let i = 0; i < chunk.length; i++) {
          const b = chunk[i];
          if (++sinceEvent > maxBytes) {
            const e = new McpMessageTooLargeError(maxBytes);
            onTooLarge(e);
            controller.error(e);
            return;
          }
          if (b === 0x0a) {
            // an empty line ends a server-sent event
            if (lineLength === 0) sinceEvent = 0;
            lineLength = 0;
          } else if (b !== 0x0d) lineLength++;
        }
        controller.enqueue(chunk);
      },
    });
    return new Response(res.body.pipeThrough(limit), {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}
