import fc from 'fast-check';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Breakpoint, describeBreakpoint } from '../../src/core/index.js';
import { DebugSession } from '../../src/cli/debug-session.js';
import { LineReader } from '../../src/cli/line-reader.js';

function session(): DebugSession {
  return new DebugSession(new LineReader(new PassThrough()), () => {});
}

const phase = fc.constantFrom('observe', 'decide', 'act', 'reduce', 'critique', 'check_stop');
const name = fc.stringMatching(/^[A-Za-z_][\w.-]{0,20}$/);
const field = fc.stringMatching(/^[A-Za-z_]\w{0,20}$/);

describe('the break specs of qitos debug', () => {
  it('any text is either a valid breakpoint or an error that starts with the command it is about', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (spec) => {
        const s = session();
        try {
          const bp = s.add(spec);
          expect(Breakpoint.safeParse(bp).success).toBe(true);
        } catch (err) {
          expect((err as Error).message).toMatch(/^break( step| phase| expr)?: /);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('describeBreakpoint of what `break` made reads back as the same breakpoint', () => {
    const spec = fc.oneof(
      phase.map((p) => `phase ${p}`),
      phase,
      fc
        .tuple(fc.integer({ min: 1, max: 1e6 }), fc.option(phase, { nil: undefined }))
        .map(([n, p]) => `step ${n}${p ? ` ${p}` : ''}`),
      name.map((t) => `tool ${t}`),
      fc.tuple(field, fc.integer({ min: -100, max: 100 })).map(([f, n]) => `expr state.${f} >= ${n}`),
    );
    fc.assert(
      fc.property(spec, (text) => {
        const { id: _a, ...first } = session().add(text);
        const { id: _b, ...again } = session().add(describeBreakpoint(first));
        expect(again).toEqual(first);
      }),
      { numRuns: 300 },
    );
  });

  it('breakpoints are numbered in order, and a bad one takes no number', () => {
    const s = session();
    expect(s.add('act').id).toBe('1');
    expect(() => s.add('step 0')).toThrow('break step: "0" is not a step number');
    expect(() => s.add('expr state.x >')).toThrow(/^break expr: /);
    expect(s.add('tool bash').id).toBe('2');
  });
});
