import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nullEnv } from '../../../src/core/index.js';
import { ArithmeticError, calculateTool, evaluateArithmetic, formatNumber } from '../../../src/kit/tools/index.js';
import { callTool } from '../../helpers/qitos-env-fixtures.js';

describe('evaluateArithmetic', () => {
  const table: Array<[string, number]> = [
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['10 / 4', 2.5],
    ['10 % 4', 2],
    ['2 ^ 10', 1024],
    ['2 ** 3', 8],
    ['2 ^ 3 ^ 2', 512],
    ['-2 ^ 2', -4],
    ['(-2) ^ 2', 4],
    ['2 ^ -1', 0.5],
    ['--3', 3],
    ['-(1 + 2) * +4', -12],
    ['1e3 + .5', 1000.5],
    ['sqrt(16) + abs(-3)', 7],
    ['min(4, 2, 8) + max(1, 9)', 11],
    ['round(2.567, 2)', 2.57],
    ['round(2.5)', 3],
    ['floor(-1.5) + ceil(1.2)', 0],
    ['log(e)', 1],
    ['log(8, 2)', 3],
    ['exp(0) + sin(0) + cos(0)', 2],
    ['PI', Math.PI],
    ['hypot(3, 4)', 5],
  ];
  for (const [expr, want] of table) {
    it(`${expr} = ${want}`, () => expect(evaluateArithmetic(expr)).toBeCloseTo(want, 12));
  }

  const errors: Array<[string, RegExp]> = [
    ['', /empty/],
    ['1 +', /^unexpected end of the expression: an operand is missing$/],
    ['(1 + 2', /expected "\)" but found the end/],
    ['1 + 2)', /unexpected "\)" at column 6/],
    ['1 / 0', /division by zero at column 3/],
    ['5 % (2 - 2)', /division by zero/],
    ['sqrt(-1)', /not a number/],
    ['10 ^ 400', /infinite/],
    ['foo(1)', /unknown function "foo"/],
    ['x + 1', /unknown name "x"/],
    ['sqrt', /needs arguments in parentheses/],
    ['max()', /max takes at least 1 argument, got 0/],
    ['pow(1)', /pow takes 2 arguments, got 1/],
    ['1; process.exit()', /unexpected character ";" at column 2/],
    ['constructor.constructor("return 1")()', /unknown|unexpected/],
    // Names are looked up as own properties only, never on Object.prototype.
    ['constructor', /^unknown name "constructor" at column 1/],
    ['__proto__ + 1', /^unknown name "__proto__" at column 1/],
    ['constructor(1)', /^unknown function "constructor" at column 1/],
    ['__proto__(1)', /^unknown function "__proto__" at column 1/],
    ['('.repeat(300) + '1' + ')'.repeat(300), /nests deeper than 200/],
    ['round(1.5, 0.5)', /digits must be an integer/],
  ];
  for (const [expr, msg] of errors) {
    it(`refuses ${JSON.stringify(expr.slice(0, 40))}`, () => {
      expect(() => evaluateArithmetic(expr)).toThrow(ArithmeticError);
      expect(() => evaluateArithmetic(expr)).toThrow(msg);
    });
  }

  it('agrees with a direct evaluation of random expression trees', () => {
    type Node = { n: number } | { op: '+' | '-' | '*'; l: Node; r: Node } | { neg: Node };
    const tree = fc.letrec<{ node: Node }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.integer({ min: -50, max: 50 }).map((n) => ({ n })),
        fc.record({
          op: fc.constantFrom('+', '-', '*') as fc.Arbitrary<'+' | '-' | '*'>,
          l: tie('node'),
          r: tie('node'),
        }),
        fc.record({ neg: tie('node') }),
      ),
    })).node;
    const show = (t: Node): string =>
      'n' in t
        ? t.n < 0
          ? `(${t.n})`
          : String(t.n)
        : 'neg' in t
          ? `-(${show(t.neg)})`
          : `(${show(t.l)} ${t.op} ${show(t.r)})`;
    const value = (t: Node): number => {
      if ('n' in t) return t.n;
      if ('neg' in t) return -value(t.neg);
      const l = value(t.l);
      const r = value(t.r);
      return t.op === '+' ? l + r : t.op === '-' ? l - r : l * r;
    };
    fc.assert(
      fc.property(tree, (t) => {
        const want = value(t);
        fc.pre(Number.isSafeInteger(want));
        expect(evaluateArithmetic(show(t))).toBe(want === 0 ? 0 : want); // the evaluator never answers -0
      }),
      { numRuns: 300 },
    );
  });

  it('formats without float noise', () => {
    expect(formatNumber(evaluateArithmetic('0.1 + 0.2'))).toBe('0.3');
    expect(formatNumber(2 ** 80)).toBe('1.20892581961463e+24');
    expect(formatNumber(-7)).toBe('-7');
  });
});

describe('calculate tool', () => {
  it('answers, and turns a bad expression into an error result', async () => {
    expect((await callTool(calculateTool(), { expression: '(2 + 3) * 4' }, nullEnv)).seen).toBe('(2 + 3) * 4 = 20');
    const bad = await callTool(calculateTool(), { expression: '2 +* 3' }, nullEnv);
    expect(bad.status).toBe('error');
    expect(bad.seen).toBe('cannot evaluate "2 +* 3": unexpected "*" at column 4');
  });
});
