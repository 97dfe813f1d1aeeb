import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { HttpError } from '../openai-error.js';

/** The cookie a browser keeps the board's token in once it opened `/?token=…`. */
export const TOKEN_COOKIE = 'qitos_board_token';

/**
 * The token rule of `qitos serve` for a board a browser opens: a request carries the token as
 * `Authorization: Bearer <token>` (scripts, curl) or in the board's cookie. A browser gets the cookie by opening any
 * page with `?token=<token>` once: the token is checked, the cookie set (HttpOnly, SameSite=Strict: no other site's
 * page sends it) and the browser sent to the same page without the token in its address. Compared in constant time
 * (hashes of equal length), as `qitos serve` compares its bearer token.
 */
export function boardAuth(token: string) {
  const want = createHash('sha256').update(token).digest();
  const matches = (got: string | undefined) =>
    got !== undefined && timingSafeEqual(want, createHash('sha256').update(got).digest());
  return async (c: Context, next: () => Promise<void>) => {
    const url = new URL(c.req.url);
    const given = url.searchParams.get('token');
    if (given !== null && c.req.method === 'GET') {
      if (!matches(given))
        throw new HttpError(
          401,
          'the token in the address is not the board token',
          'invalid_request_error',
          'invalid_api_key',
        );
      url.searchParams.delete('token');
      const cookie = `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`;
      return c.body(null, 303, {
        location: `${url.pathname}${url.search}`,
        'set-cookie': cookie,
        'cache-control': 'no-store',
      });
    }
    const bearer = /^Bearer (.+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
    if (!matches(bearer) && !matches(cookieValue(c.req.header('cookie'), TOKEN_COOKIE)))
      throw new HttpError(
        401,
        'the board needs its token: open the board once at /?token=<QITOS_SERVE_TOKEN>, or send "Authorization: Bearer <token>"',
        'invalid_request_error',
        'invalid_api_key',
      );
    await next();
  };
}

/** The value of cookie `name` in a Cookie header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined; // a malformed escape: no token, so a 401
      }
    }
  }
  return undefined;
}
