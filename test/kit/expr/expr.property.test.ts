import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExprError, evaluateExpr, formatValue, parseExpr, type ExprValue } from '../../../src/kit/expr/index.js';

const params = { numRuns: 400 };

// Data a scope may hold, with the keys an attacker would try: own "__proto__" keys (as JSON.parse makes them),
// "constructor", "toString", "length".
const trickyKey = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'length',
  'a',
  'b',
  '0',
);
const data: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, true, false, 0, -1, 2.5, '', 'x', 'hello world'),
    fc.array(tie('v'), { maxLength: 4 }),
    fc
      .array(fc.tuple(fc.oneof(trickyKey, fc.string({ maxLength: 4 })), tie('v')), { maxLength: 4 })
      .map((entries) =>
        JSON.parse(`{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v) ?? 'null'}`).join(',')}}`),
      ),
  ),
})).v;
const scope = fc.record({
  state: data,
  answer: fc.oneof(fc.string({ maxLength: 8 }), fc.constant(null)),
  xs: fc.array(data, { maxLength: 3 }),
});

// Expressions built from the language's pieces, including the ones that would reach a prototype in JavaScript.
const name = fc.constantFrom(
  'state',
  'answer',
  'xs',
  'constructor',
  '__proto__',
  'toString',
  'Object',
  'globalThis',
  'this',
  'process',
);
const field = fc.constantFrom(
  'a',
  'b',
  'length',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'call',
  'bind',
  'valueOf',
  '0',
);
const fn = fc.constantFrom(
  'len',
  'contains',
  'keys',
  'has',
  'string',
  'number',
  'type',
  'slice',
  'join',
  'sum',
  'max',
  'constructor',
  'eval',
  'Function',
);
const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    name,
    fc.constantFrom('1', '0', '-2.5', '"a"', "'__proto__'", 'true', 'null', '[]', '{}'),
    fc.tuple(tie('e'), fc.constantFrom('.', '?.'), field).map(([o, dot, f]) => `${o}${dot}${f}`),
    fc.tuple(tie('e'), tie('e')).map(([o, k]) => `${o}[${k}]`),
    fc
      .tuple(
        tie('e'),
        fc.constantFrom('+', '-', '*', '/', '%', '^', '==', '!=', '<', '>=', '&&', '||', '??', ' in '),
        tie('e'),
      )
      .map(([a, op, b]) => `(${a} ${op} ${b})`),
    fc.tuple(fc.constantFrom('!', '-', '+'), tie('e')).map(([op, a]) => `${op}${a}`),
    fc.tuple(fn, fc.array(tie('e'), { maxLength: 3 })).map(([f, args]) => `${f}(${args.join(', ')})`),
    fc.tuple(tie('e'), tie('e'), tie('e')).map(([c, a, b]) => `(${c} ? ${a} : ${b})`),
    fc.array(tie('e'), { maxLength: 3 }).map((items) => `[${items.join(', ')}]`),
    fc.tuple(fc.oneof(trickyKey, fc.constant('k')), tie('e')).map(([k, v]) => `{${JSON.stringify(k)}: ${v}}`),
  ),
})).e;

/** True when a value is plain data all the way down: no function, no prototype object, no class instance. */
function isData(v: unknown, depth = 0): boolean {
  if (depth > 50) return true;
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v !== Array.prototype && v.every((x) => isData(x, depth + 1));
  if (typeof v !== 'object') return false;
  if (v === Object.prototype || Object.getPrototypeOf(v) !== Object.prototype) return false;
  return Object.keys(v).every((k) => isData((v as Record<string, unknown>)[k], depth + 1));
}

function run(src: string, s: Record<string, unknown>): { value?: ExprValue; error?: unknown } {
  try {
    return { value: evaluateExpr(src, s) };
  } catch (error) {
    return { error };
  }
}

describe('expression language properties', () => {
  it('never throws anything but ExprError, whatever the text', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({
        unit: fc.constantFrom(...'ab.?[]()"\'\\!=<>&|+-*/%^,:{} 0123456789eEinulltrue'.split('')),
        maxLength: 40,
      }),
    );
    fc.assert(
      fc.property(text, scope, (src, s) => {
        const r = run(src, s);
        if ('error' in r && r.error !== undefined) expect(r.error).toBeInstanceOf(ExprError);
      }),
      params,
    );
  });

  it('never reaches a prototype or a function, never changes Object.prototype, and fails only with ExprError', () => {
    const before = Object.getOwnPropertyNames(Object.prototype).join(',');
    let values = 0;
    fc.assert(
      fc.property(expr, scope, (src, s) => {
        const r = run(src, s);
        if (r.error !== undefined) {
          expect(r.error).toBeInstanceOf(ExprError);
          expect((r.error as ExprError).message.length).toBeGreaterThan(0);
        } else {
          values++;
          expect(isData(r.value)).toBe(true);
        }
      }),
      params,
    );
    expect(Object.getOwnPropertyNames(Object.prototype).join(',')).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // The generator is not degenerate: a good share of the expressions evaluate to a value.
    expect(values).toBeGreaterThan(20);
  });

  it('a member path reads exactly the own fields and items a reference walk finds, and nothing else', () => {
    const step = fc.oneof(
      field.map((f) => ({ dot: true, key: f as string | number })),
      fc.integer({ min: -3, max: 3 }).map((i) => ({ dot: false, key: i as string | number })),
    );
    const forbidden = new Set(['__proto__', 'constructor', 'prototype']);
    /** The reference: own fields of plain objects, items of lists and strings, `.length` of lists and strings. */
    const walk = (
      root: unknown,
      steps: Array<{ dot: boolean; key: string | number }>,
    ): { ok: true; value: unknown } | { ok: false } => {
      let cur = root;
      for (const { key } of steps) {
        if (typeof key === 'string' && forbidden.has(key)) return { ok: false };
        if (Array.isArray(cur) || typeof cur === 'string') {
          if (key === 'length') cur = cur.length;
          else if (typeof key === 'number' && Number.isInteger(key) && key >= -cur.length && key < cur.length)
            cur = cur[key < 0 ? cur.length + key : key];
          else return { ok: false };
        } else if (cur !== null && typeof cur === 'object' && Object.hasOwn(cur, String(key))) {
          cur = (cur as Record<string, unknown>)[String(key)];
        } else return { ok: false };
      }
      return { ok: true, value: cur };
    };
    fc.assert(
      fc.property(data, fc.array(step, { minLength: 1, maxLength: 4 }), (root, steps) => {
        const src = `root${steps.map(({ dot, key }) => (dot ? `.${key}` : `[${key}]`)).join('')}`.replace(
          /\.0\b/g,
          '["0"]',
        );
        const want = walk(root, steps);
        const got = run(src, { root });
        if (want.ok) expect(got.value).toStrictEqual(want.value);
        else expect(got.error).toBeInstanceOf(ExprError);
      }),
      { ...params, numRuns: 1000 },
    );
  });

  it('round-trips literals: formatValue writes source that evaluates to an equal value', () => {
    const value = fc.oneof(
      fc.jsonValue(),
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
    );
    fc.assert(
      fc.property(value, (v) => {
        const src = formatValue(v as ExprValue);
        const back = evaluateExpr(src, {});
        expect(back).toStrictEqual(v);
        expect(formatValue(back)).toBe(src);
      }),
      params,
    );
  });

  it('compares numbers and strings exactly as JavaScript does', () => {
    const pair = fc.oneof(
      fc.tuple(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
      ),
      fc.tuple(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 })),
    );
    fc.assert(
      fc.property(pair, ([a, b]) => {
        const s = { a, b };
        expect(evaluateExpr('[a < b, a <= b, a > b, a >= b, a == b, a != b]', s)).toEqual([
          a < b,
          a <= b,
          a > b,
          a >= b,
          a === b,
          a !== b,
        ]);
      }),
      params,
    );
  });

  it('parses any generated expression within its limits, or says which limit it hit', () => {
    fc.assert(
      fc.property(expr, fc.integer({ min: 1, max: 40 }), (src, maxDepth) => {
        try {
          parseExpr(src, { maxDepth });
        } catch (err) {
          expect(err).toBeInstanceOf(ExprError);
          expect((err as ExprError).column === undefined || (err as ExprError).column! >= 1).toBe(true);
        }
      }),
      params,
    );
  });
});
