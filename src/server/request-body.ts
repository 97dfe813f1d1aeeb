import type { IncomingMessage } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { z } from 'zod';
import { formatZodIssue, zodIssueField } from '../core/index.js';
import { HttpError, invalidRequest } from './openai-error.js';

/**
 * The request's JSON body, read up to `maxBytes` (413 past it, before reading the rest), or a 400 naming what is
 * wrong with it. On Node the body is read from the socket's request directly: going through the fetch `Request`
 * (as Hono's body-limit middleware does) builds that `Request`, a web stream and an abort signal per request, the
 * largest cost the chat route added to a run (docs/performance.md#server).
 */
export async function jsonBody(c: Context, maxBytes: number): Promise<unknown> {
  requireJson(c.req.header('content-type'));
  const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
  const text = incoming ? await nodeBodyText(incoming, maxBytes) : await webBodyText(c.req.raw, maxBytes);
  if (!text.trim()) throw invalidRequest('the request body is empty; expected a JSON object');
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw invalidRequest(`the request body is not valid JSON: ${(err as Error).message}`, null, 'invalid_json');
  }
}

/**
 * A JSON route takes `application/json` only (415 otherwise): a web page can send `text/plain`, form or multipart
 * bodies to any address without a CORS preflight, but not JSON, so this keeps such "simple" requests away from the
 * routes that act.
 */
export function requireJson(contentType: string | undefined): void {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') {
    throw new HttpError(
      415,
      `the request body must be sent as content-type ` +
        `application/json${contentType ? `, not ${JSON.stringify(contentType.slice(0, 100))}` : ' (no content-type was sent)'}`,
      'invalid_request_error',
      'unsupported_media_type',
    );
  }
}

/** `value` checked by a zod schema; the first issue becomes a 400 whose `param` names the field. */
export function parseBody<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw invalidRequest(formatZodIssue(issue, '(body)'), zodIssueField(issue) || null);
}

/** A body cap answering 413 in OpenAI's error shape, for routes that hand the fetch `Request` on (uploads, MCP). */
export function jsonLimit(maxSize: number) {
  return bodyLimit({ maxSize, onError: (c) => c.json(tooLarge(maxSize).body(), 413) });
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(
    413,
    `the request body is larger than ${maxBytes} bytes`,
    'invalid_request_error',
    'request_too_large',
  );
}

/** A declared length over the cap is refused before a byte is read; a chunked body is cut off where it passes it. */
function nodeBodyText(incoming: IncomingMessage, maxBytes: number): Promise<string> {
  if (Number(incoming.headers['content-length'] ?? 0) > maxBytes) return Promise.reject(tooLarge(maxBytes));
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (err: Error | undefined) => {
      incoming.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      if (err) reject(err);
      else resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks, size).toString('utf8'));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        incoming.pause();
        settle(tooLarge(maxBytes));
      } else chunks.push(chunk);
    };
    const onEnd = () => settle(undefined);
    const onError = (err: Error) => settle(invalidRequest(`the request body could not be read: ${err.message}`));
    const onClose = () => settle(invalidRequest('the client closed the connection before the request body ended'));
    if (incoming.readableEnded) return settle(undefined);
    incoming.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/** The same cap on a fetch `Request` (the app served by something other than @hono/node-server). */
async function webBodyText(req: Request, maxBytes: number): Promise<string> {
  if (Number(req.headers.get('content-length') ?? 0) > maxBytes) throw tooLarge(maxBytes);
  if (!req.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of req.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
