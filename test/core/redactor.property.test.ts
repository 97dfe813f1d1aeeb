import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MIN_SECRET_LENGTH, REDACTED, Redactor } from '../../src/core/index.js';

/** Secrets long enough to be redacted, drawn from a small alphabet so they overlap and repeat in the text. */
const secret = fc.string({
  unit: fc.constantFrom('a', 'b', 'c', '"', '\\', 'é', '\n', 'x'),
  minLength: MIN_SECRET_LENGTH,
  maxLength: 12,
});
const filler = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'x', ' ', '[', ']', '"'), maxLength: 8 });

describe('Redactor', () => {
  it('any secret embedded in any text is gone after redaction, also where secrets overlap (property)', () => {
    fc.assert(
      fc.property(
        fc.array(secret, { minLength: 1, maxLength: 4 }),
        fc.array(fc.tuple(filler, fc.nat()), { maxLength: 8 }),
        fc.boolean(),
        (secrets, pieces, overlap) => {
          // Text: filler and secrets in turn; with `overlap`, a secret's tail is glued to the next secret's head.
          let text = '';
          pieces.forEach(([f, i], k) => {
            const s = secrets[i % secrets.length];
            text += overlap && k % 2 ? s.slice(0, -2) + secrets[(i + 1) % secrets.length] : f + s;
          });
          const r = new Redactor(secrets);
          const out = r.redact(text);
          for (const s of secrets) expect(out.includes(s), JSON.stringify({ s, text, out })).toBe(false);
          // In JSON too: the escaped spelling of a secret is found and the result is still valid JSON.
          const json = r.redact(JSON.stringify({ text }));
          for (const s of secrets) expect(JSON.parse(json).text.includes(s)).toBe(false);
        },
      ),
      { numRuns: 400 },
    );
  });

  it(
    'JSON text stays JSON after redaction, with no secret in any of its strings, even where a ' +
      'secret starts inside an escape (property)',
    () => {
      const unit = fc.constantFrom('n', 'u', '0', '1', 'e', '9', 'a', '\\', '"', '\n', '\u00e9', '\u0001');
      fc.assert(
        fc.property(
          fc.array(fc.string({ unit, minLength: MIN_SECRET_LENGTH, maxLength: 10 }), { minLength: 1, maxLength: 3 }),
          fc.array(fc.string({ unit, maxLength: 30 }), { maxLength: 6 }),
          (secrets, texts) => {
            const r = new Redactor(secrets);
            const value = { texts: texts.map((t, i) => t + secrets[i % secrets.length] + t) };
            const parsed = JSON.parse(r.redact(JSON.stringify(value))) as typeof value;
            for (const t of parsed.texts) for (const s of secrets) expect(t.includes(s)).toBe(false);
          },
        ),
        { numRuns: 500 },
      );
    },
  );

  it('text streamed in pieces of any size comes out with no secret in the joined output (property)', () => {
    fc.assert(
      fc.property(
        fc.array(secret, { minLength: 1, maxLength: 3 }),
        fc.array(fc.tuple(filler, fc.nat()), { maxLength: 6 }),
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1 }),
        (secrets, pieces, sizes) => {
          const text = pieces.map(([f, i]) => f + secrets[i % secrets.length]).join('');
          const r = new Redactor(secrets);
          let hold = '';
          let out = '';
          for (let at = 0, k = 0; at < text.length; k++) {
            const piece = text.slice(at, at + sizes[k % sizes.length]);
            at += piece.length;
            const next = r.splitStream(hold + piece);
            out += next.ready;
            hold = next.hold;
          }
          out += r.redact(hold);
          for (const s of secrets) expect(out.includes(s)).toBe(false);
          // The same as redacting it whole, but for markers that meet at a piece boundary.
          const merged = (t: string) => t.replace(/(\[redacted\])+/g, REDACTED);
          expect(merged(out)).toBe(merged(r.redact(text)));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('text without a secret, and values shorter than the minimum, are left alone (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ maxLength: MIN_SECRET_LENGTH - 1 }), (text, short) => {
        expect(new Redactor([short]).redact(text)).toBe(text);
        expect(new Redactor([short]).size).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it('redacts strings and keys of JSON values, and returns the value itself when it holds no secret', () => {
    const r = new Redactor(['sk-live-123456', undefined, 'abc']);
    const v = {
      a: 'key sk-live-123456 here',
      list: [1, 'sk-live-123456'],
      'sk-live-123456': true,
      n: null,
      short: 'abc',
    };
    expect(r.redactValue(v)).toEqual({
      a: `key ${REDACTED} here`,
      list: [1, REDACTED],
      [REDACTED]: true,
      n: null,
      short: 'abc',
    });
    const clean = { a: 'nothing' };
    expect(r.redactValue(clean)).toBe(clean);
    expect(r.redact('x sk-live-123456sk-live-123456 y')).toBe(`x ${REDACTED} y`);
    // A secret that begins inside a JSON escape (the "n" of \n, the digits of \u0001) takes the escape with it.
    const json = new Redactor(['nabc123', '1abcdef']).redact(JSON.stringify({ t: 'x\nabc123 y\u0001abcdef z' }));
    expect(JSON.parse(json)).toEqual({ t: `x${REDACTED} y${REDACTED} z` });
  });
});
