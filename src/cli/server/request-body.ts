import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { z } from 'zod';
import { formatZodIssue, zodIssueField } from '../../core/index.js';
import { HttpError, invalidRequest } from './openai-error.js';

/** The request's JSON body, or a 400 naming what is wrong with it. */
export async function jsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (!text.trim()) throw invalidRequest('the request body is empty; expected a JSON object');
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw invalidRequest(`the request body is not valid JSON: ${(err as Error).message}`, null, 'invalid_json');
  }
}

/** `value` checked by a zod schema; the first issue becomes a 400 whose `param` names the field. */
export function parseBody<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw invalidRequest(formatZodIssue(issue, '(body)'), zodIssueField(issue) || null);
}

/** A body cap answering 413 in OpenAI's error shape. */
export function jsonLimit(maxSize: number) {
  return bodyLimit({ maxSize, onError: (c) => c.json(new HttpError(413, `the request body is larger than ${maxSize} bytes`, 'invalid_request_error', 'request_too_large').body(), 413) });
}

