import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { HttpError } from './openai-error.js';

/** Requires `authorization: Bearer <token>`; compared in constant time (hashes of equal length). */
export function bearer(token: string) {
  const want = createHash('sha256').update(token).digest();
  return async (c: Context, next: () => Promise<void>) => {
    const m = /^Bearer (.+)$/i.exec(c.req.header('authorization') ?? '');
    const got = createHash('sha256')
      .update(m?.[1] ?? '')
      .digest();
    if (!m || !timingSafeEqual(want, got)) {
      throw new HttpError(
        401,
        m ? 'Incorrect API key provided' : 'missing bearer token: send "Authorization: Bearer <token>"',
        'invalid_request_error',
        'invalid_api_key',
      );
    }
    await next();
  };
}
