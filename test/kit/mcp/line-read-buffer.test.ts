import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineReadBuffer } from '../../../src/kit/mcp/line-read-buffer.js';
import { McpMessageTooLargeError } from '../../../src/kit/mcp/index.js';

const split = (buf: Buffer, cuts: number[]) => {
  const points = [...new Set(cuts.map((c) => c % (buf.length + 1)))].sort((a, b) => a - b);
  return [0, ...points].map((p, i, all) => buf.subarray(p, all[i + 1] ?? buf.length)).filter((b) => b.length);
};

describe('LineReadBuffer', () => {
  it('gives back every newline-delimited message, however the stream is cut (multi-byte characters too)', () => {
    const message = fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ unit: 'grapheme', maxLength: 12 }), {
      maxKeys: 3,
    });
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.boolean(),
        (messages, cuts, crlf) => {
          const rb = new LineReadBuffer<unknown>(1 << 20, (line) => JSON.parse(line));
          const out: unknown[] = [];
          for (const chunk of split(
            Buffer.from(messages.map((m) => JSON.stringify(m) + (crlf ? '\r\n' : '\n')).join('')),
            cuts,
          )) {
            rb.append(chunk);
            for (let m = rb.readMessage(); m !== null; m = rb.readMessage()) out.push(m);
          }
          expect(out).toEqual(messages);
        },
      ),
    );
  });

  it('throws McpMessageTooLargeError for a message over the limit, and takes a 9 MB message in linear time', () => {
    const rb = new LineReadBuffer<string>(10, (l) => l);
    rb.append(Buffer.from('0123456789\n'));
    expect(rb.readMessage()).toBe('0123456789');
    expect(() => rb.append(Buffer.from('0123456789A'))).toThrow(McpMessageTooLargeError);
    const big = new LineReadBuffer<number>(10 * 1024 * 1024, (l) => l.length);
    const chunk = Buffer.alloc(64 * 1024, 120);
    const t0 = performance.now();
    for (let i = 0; i < 144; i++) big.append(chunk);
    big.append(Buffer.from('\n'));
    expect(big.readMessage()).toBe(144 * 64 * 1024);
    // the SDK's buffer needs seconds for this; a linear one a few milliseconds (generous bound for a busy machine)
    expect(performance.now() - t0).toBeLessThan(1_000);
  });
});
