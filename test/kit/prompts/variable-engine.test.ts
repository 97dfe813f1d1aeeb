import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  VariableEngine,
  VariableError,
  createVariableEngine,
  envProvider,
  stateProvider,
  taskProvider,
  timeProvider,
  valuesProvider,
} from '../../../src/kit/prompts/index.js';

// 2025-01-31T23:30:05Z: still Friday in London, already Saturday in Tokyo
const fixed = () => new Date(Date.UTC(2025, 0, 31, 23, 30, 5));

describe('VariableEngine', () => {
  it('fills placeholders from providers, with optional spaces and a colon argument', () => {
    const v = new VariableEngine({
      providers: [
        valuesProvider({
          name: 'Ada',
          n: 3,
          obj: { a: [1] },
          greet: (_c: unknown, arg: string | undefined) => `hi ${arg}`,
        }),
      ],
    });
    expect(v.resolve('{{name}} has {{ n }} items: {{obj}}; {{greet:there}}')).toBe(
      'Ada has 3 items: {"a":[1]}; hi there',
    );
  });

  it('leaves unknown variables as written, or throws naming them', () => {
    expect(new VariableEngine().resolve('a {{missing}} b {{x:y}}')).toBe('a {{missing}} b {{x:y}}');
    const strict = new VariableEngine({ unknown: 'error', providers: [valuesProvider({ known: 1 })] });
    expect(() => strict.resolve('{{known}} {{missing}} {{other}} {{missing}}')).toThrow(
      /unknown prompt variables: \{\{missing\}\}, \{\{other\}\}/,
    );
    try {
      strict.resolve('{{nope}}');
    } catch (err) {
      expect(err).toBeInstanceOf(VariableError);
      expect((err as VariableError).variables).toEqual(['nope']);
    }
  });

  it('keeps escaped placeholders literal and does not nest braces', () => {
    const v = new VariableEngine({ providers: [valuesProvider({ x: 'X', b: 'B' })] });
    expect(v.resolve('\\{{x}} and {{x}}')).toBe('{{x}} and X');
    expect(v.resolve('\\\\{{x}}')).toBe('\\X');
    expect(v.resolve('{{{x}}}')).toBe('{X}');
    expect(v.resolve('{{a{{b}}}}')).toBe('{{aB}}');
    expect(v.resolve('a \\ b {x} }} {{')).toBe('a \\ b {x} }} {{');
    expect(v.variables('{{x}} \\{{y}} {{ b }}')).toEqual(['x', 'b']);
  });

  it('never expands a value twice (property)', () => {
    const names = ['a', 'b', 'c'];
    const literal = fc.string({ maxLength: 8 }).filter((s) => !/[{}\\]/.test(s));
    const value = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('{{a}}', '{{b}}', '\\{{c}}', '{{a{{b}}}}', '}}{{'),
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            literal.map((t) => ({ t })),
            fc.constantFrom(...names).map((n) => ({ n })),
          ),
          { maxLength: 10 },
        ),
        fc.tuple(value, value, value),
        (segments, vals) => {
          const values: Record<string, string> = { a: vals[0], b: vals[1], c: vals[2] };
          const v = new VariableEngine({ providers: [valuesProvider(values)] });
          const template = segments.map((s) => ('t' in s ? s.t : `{{${s.n}}}`)).join('');
          const expected = segments.map((s) => ('t' in s ? s.t : values[s.n])).join('');
          expect(v.resolve(template)).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('names the variable whose value cannot be rendered as text (a cycle, a BigInt in an object)', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const v = new VariableEngine({ providers: [valuesProvider({ loop: cyclic, big: { n: 10n }, plain: 10n })] });
    expect(v.resolve('{{plain}}')).toBe('10');
    expect(() => v.resolve('a {{loop}} b')).toThrow(VariableError);
    expect(() => v.resolve('a {{loop}} b')).toThrow(
      /prompt variable \{\{loop\}\} has a value that cannot be rendered as text/,
    );
    expect(() => v.resolve('{{big}}')).toThrow(/\{\{big\}\} has a value that cannot be rendered/);
  });

  it('asks providers in order and reports a failing provider by variable name', () => {
    const v = new VariableEngine({
      providers: [valuesProvider({ x: 'first' }, 'one'), valuesProvider({ x: 'second', y: 'y' }, 'two')],
    });
    expect(v.resolve('{{x}} {{y}}')).toBe('first y');
    expect(() => v.register(valuesProvider({}, 'one'))).toThrow(/already registered/);
    const bad = new VariableEngine({ providers: [timeProvider()] });
    expect(() => bad.resolve('{{date:Mars/Olympus}}')).toThrow(
      /\{\{date:Mars\/Olympus\}\} failed in provider "time": unknown time zone "Mars\/Olympus"/,
    );
    const badLocale = new VariableEngine({ providers: [timeProvider({ timeZone: 'UTC', locale: 'not a locale!' })] });
    expect(() => badLocale.resolve('{{weekday}}')).toThrow(
      /\{\{weekday\}\} failed in provider "time": invalid locale "not a locale!"/,
    );
  });

  it('keeps registrations per instance (no global registry)', () => {
    const a = new VariableEngine({ providers: [valuesProvider({ x: 'A' })] });
    const b = new VariableEngine();
    expect(a.resolve('{{x}}')).toBe('A');
    expect(b.resolve('{{x}}')).toBe('{{x}}');
  });
});

describe('built-in providers', () => {
  it('formats time in the configured zone, or the one given per use', () => {
    const v = new VariableEngine({ providers: [timeProvider({ timeZone: 'Europe/London', now: fixed })] });
    expect(v.resolve('{{date}} {{time}} {{weekday}} {{timezone}}')).toBe('2025-01-31 23:30:05 Friday Europe/London');
    expect(v.resolve('{{datetime}}')).toBe('2025-01-31T23:30:05+00:00');
    expect(v.resolve('{{date:Asia/Tokyo}} {{weekday:Asia/Tokyo}} {{datetime:Asia/Tokyo}}')).toBe(
      '2025-02-01 Saturday 2025-02-01T08:30:05+09:00',
    );
    expect(v.resolve('{{datetime:America/St_Johns}}')).toBe('2025-01-31T20:00:05-03:30');
    expect(v.resolve('{{unix}}')).toBe(String(Date.UTC(2025, 0, 31, 23, 30, 5) / 1000));
  });

  it('reads task and state fields through own properties only', () => {
    const v = new VariableEngine({ providers: [taskProvider(), stateProvider()] });
    const ctx = {
      task: { id: 't1', objective: 'Add numbers', inputs: { city: 'Paris', nums: [1, 2] } },
      state: { step: 4, metrics: { toolCalls: 7 } },
    };
    expect(
      v.resolve(
        '{{task}} / {{task.id}} / {{task.inputs.city}} / {{task.inputs.nums}} / {{state.step}} / {{state.metrics.toolCalls}}',
        ctx,
      ),
    ).toBe('Add numbers / t1 / Paris / [1,2] / 4 / 7');
    expect(v.resolve('{{state.constructor}} {{task.__proto__}} {{state.metrics.nope}}', ctx)).toBe(
      '{{state.constructor}} {{task.__proto__}} {{state.metrics.nope}}',
    );
  });

  it('reads only allow-listed environment variables', () => {
    const env = { HOME: '/home/ada', SECRET_KEY: 'sk-123' };
    const v = new VariableEngine({ providers: [envProvider({ allow: ['HOME', 'UNSET'], env })] });
    expect(v.resolve('{{env.HOME}} {{env.SECRET_KEY}} {{env.UNSET}}')).toBe(
      '/home/ada {{env.SECRET_KEY}} {{env.UNSET}}',
    );
  });

  it('createVariableEngine wires the built-ins and custom providers', () => {
    const v = createVariableEngine({
      timeZone: 'UTC',
      now: fixed,
      providers: [valuesProvider({ team: 'qitos' })],
      unknown: 'error',
    });
    expect(v.providerNames).toEqual(['time', 'task', 'state', 'values']);
    expect(v.resolve('{{date}} {{task}} {{team}}', { task: { objective: 'go' } })).toBe('2025-01-31 go qitos');
    expect(() => v.resolve('{{env.HOME}}')).toThrow(VariableError);
  });
});
