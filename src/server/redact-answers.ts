import type { MiddlewareHandler } from 'hono';
import type { Redactor } from '../core/index.js';

/**
 * Keeps every secret the redactor holds (the serve token, API keys, expanded `${VAR}`s) out of the server's
 * answers: a JSON, text or HTML body is read and redacted whole; an event stream is redacted per chunk (each SSE
 * event is written in one piece). The redactor works on the JSON spelling of secrets too, so JSON stays valid.
 */
export function redactAnswers(redactor: Redactor): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const res = c.res;
    if (redactor.size === 0 || !res.body) return;
    const type = res.headers.get('content-type') ?? '';
    if (type.startsWith('text/event-stream')) {
      const decoder = new TextDecoder();
      const encoder = new TextEncoder();
      const body = res.body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform: (chunk, ctl) =>
            ctl.enqueue(encoder.encode(redactor.redact(decoder.decode(chunk, { stream: true })))),
          flush: (ctl) => {
            const rest = decoder.decode();
            if (rest) ctl.enqueue(encoder.encode(redactor.redact(rest)));
          },
        }),
      );
      c.res = new Response(body, res);
    } else if (/^(application\/json|text\/)/.test(type)) {
      const text = await res.text();
      if (!redactor.finds(text)) return void (c.res = new Response(text, res));
      const headers = new Headers(res.headers);
      headers.delete('content-length');
      c.res = new Response(redactor.redact(text), { status: res.status, statusText: res.statusText, headers });
    }
  };
}
