import { inflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ViewData } from '../../../src/app/view/view-data.js';
import { packView, type ViewMeta } from '../../../src/app/view/view-pack.js';

const inflate = (b64: string): unknown => JSON.parse(inflateRawSync(Buffer.from(b64, 'base64')).toString('utf8'));

function data(steps: unknown[][]): ViewData {
  return {
    runs: [],
    steps,
    rows: steps[0].map((_, i) => ({ s: i + 1, a: i, b: steps.length > 1 ? i : -1, ph: [] })),
    first: null,
  };
}

describe('packView', () => {
  it('the chunks of each run inflate back to its steps, in order, whatever the chunk size', () => {
    const step = fc.record({
      step: fc.nat(),
      durationMs: fc.double({ noNaN: true, noDefaultInfinity: true }),
      observation: fc.jsonValue(),
      decision: fc.option(fc.record({ mode: fc.constant('final'), answer: fc.string() }), { nil: null }),
    });
    fc.assert(
      fc.property(
        fc.array(fc.array(step, { maxLength: 40 }), { minLength: 1, maxLength: 2 }),
        fc.integer({ min: 1, max: 50 }),
        (runs, chunk) => {
          const packed = packView(data(runs), chunk);
          expect(packed.chunk).toBe(chunk);
          packed.steps.forEach((chunks, r) => {
            expect(chunks).toHaveLength(Math.ceil(runs[r].length / chunk));
            expect(chunks.flatMap((c) => inflate(c) as unknown[])).toEqual(JSON.parse(JSON.stringify(runs[r])));
          });
          const meta = inflate(packed.meta) as ViewMeta;
          expect(meta.rowSteps.map((l) => l.length)).toEqual(runs.map((l) => l.length));
          expect(meta).not.toHaveProperty('steps');
        },
      ),
      { numRuns: 60 },
    );
  });

  it("a row's summary keeps what the row shows (tool names and arguments, the answer, the error) and cuts long strings", () => {
    const long = 'x'.repeat(5_000);
    const steps = [
      {
        step: 1,
        durationMs: 3,
        tokens: { input: 1, output: 2, reasoning: 0, cache: { read: 0, write: 0 }, total: 3 },
        cost: 0.5,
        decision: { mode: 'act', rationale: long, actions: [{ id: 'c1', name: 'read', args: { path: long } }] },
        observation: long,
        error: { kind: 'tool', message: 'boom', recovered: true },
      },
    ];
    const meta = inflate(packView(data([steps])).meta) as ViewMeta;
    const row = meta.rowSteps[0][0] as Record<string, any>;
    expect(row.tokens).toEqual({ total: 3 });
    expect(row.cost).toBe(0.5);
    expect(row.error).toEqual({ kind: 'tool', message: 'boom' });
    expect(row.decision.mode).toBe('act');
    expect(row.decision.rationale).toBeUndefined();
    expect(row.decision.actions[0].name).toBe('read');
    expect(row.decision.actions[0].args.path.length).toBeLessThan(600);
    expect(row.observation).toBeUndefined();
  });

  it('the page data is base64 only: nothing in a step can close the script element', () => {
    const packed = packView(data([[{ step: 1, observation: '</script><img src=x onerror=alert(1)>' }]]));
    for (const b64 of [packed.meta, ...packed.steps.flat()]) expect(b64).toMatch(/^[A-Za-z0-9+/]*={0,2}$/);
  });
  it('refuses a chunk size that is not a positive integer', () => {
    expect(() => packView(data([[]]), 0)).toThrow(/chunk must be a positive integer, got 0/);
  });
});
