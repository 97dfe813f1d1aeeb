import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExprError, evaluateCondition, evaluateExpr } from '../../../src/kit/expr/index.js';
import { LinearRegexError, compileLinearRegex } from '../../../src/kit/expr/linear-regex.js';

// Patterns of JavaScript regex syntax without backreferences or lookaround, over a small alphabet (so random texts
// match often), with texts short enough that RegExp's backtracking stays fast for the comparison.
const atom = fc.constantFrom(
  'a',
  'b',
  'A',
  '1',
  ' ',
  '_',
  '-',
  '\\.',
  '.',
  '\\d',
  '\\D',
  '\\w',
  '\\W',
  '\\s',
  '\\S',
  '[ab]',
  '[^a]',
  '[a-c]',
  '[A-Z_]',
  '[\\d-]',
  '[^\\s]',
  '\\n',
  '\\x41',
  '\\u0062',
  'é',
  '{',
  '}',
  ']',
);
const assertion = fc.constantFrom('^', '$', '\\b', '\\B');
const quantifier = fc.constantFrom('*', '+', '?', '{2}', '{1,}', '{0,2}', '{1,3}', '*?', '+?', '??', '{2,}?');
const pattern: fc.Arbitrary<string> = fc.letrec<{ p: string; piece: string }>((tie) => ({
  piece: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    atom,
    assertion,
    fc.tuple(atom, quantifier).map(([a, q]) => a + q),
    fc
      .tuple(fc.constantFrom('(', '(?:', '(?<g>'), tie('p'), fc.option(quantifier, { nil: '' }))
      .map(([open, p, q]) => `${open}${p})${q}`),
  ),
  p: fc
    .tuple(fc.array(tie('piece'), { minLength: 1, maxLength: 4 }), fc.option(tie('p'), { nil: undefined }))
    .map(([pieces, alt]) => pieces.join('') + (alt === undefined ? '' : `|${alt}`)),
})).p;
const text = fc
  .array(fc.constantFrom('a', 'b', 'A', 'B', '1', ' ', '_', '-', '.', '\n', 'é', 'É', '{', '}', ']'), { maxLength: 12 })
  .map((cs) => cs.join(''));
const flags = fc.subarray(['i', 'm', 's', 'u']).map((f) => f.join(''));

describe('the linear-time regex of matches', () => {
  it('answers as JavaScript RegExp does on patterns without backreferences or lookaround', () => {
    fc.assert(
      fc.property(pattern, flags, fc.array(text, { minLength: 1, maxLength: 5 }), (p, f, texts) => {
        let native: RegExp;
        try {
          native = new RegExp(p, f);
        } catch {
          fc.pre(false);
          return;
        }
        const linear = compileLinearRegex(p, f);
        for (const t of texts) expect(linear.test(t), `/${p}/${f} on ${JSON.stringify(t)}`).toBe(native.test(t));
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees on the spelled-out cases: anchors per line, dotAll, case folding, code points, counted repetition', () => {
    const cases: Array<[string, string, string]> = [
      ['^b$', 'm', 'a\nb\nc'],
      ['^b$', '', 'a\nb\nc'],
      ['a.c', 's', 'a\nc'],
      ['a.c', '', 'a\nc'],
      ['^.$', 'u', '😀'],
      ['^.$', '', '😀'],
      ['[😀-😂]', 'u', 'x😁'],
      ['\\u{1F600}', 'u', '😀'],
      ['ÉTÉ', 'i', 'été'],
      ['[a-z]+\\d{2,3}\\b', 'i', 'ABC12 x'],
      ['(?:ab){2,}c', '', 'abababc'],
      ['(a*)*b', '', 'aaaaac'],
      ['\\bfoo\\B', '', 'foobar'],
      ['x{,2}', '', 'x{,2}'],
      ['\\cJ', '', '\n'],
      ['', '', ''],
    ];
    for (const [p, f, t] of cases)
      expect(compileLinearRegex(p, f).test(t), `/${p}/${f} on ${JSON.stringify(t)}`).toBe(new RegExp(p, f).test(t));
  });

  it('a catastrophic pattern ends at once in a workflow condition and an expression, with the answer', () => {
    // RegExp takes exponential time here (30 a's and a b: about a billion steps); the linear matcher does not.
    expect(evaluateCondition('matches(text, "^(a+)+$")', { text: `${'a'.repeat(30)}b` })).toBe(false);
    expect(evaluateExpr('matches(text, "^(a|a)*$")', { text: 'a'.repeat(100_000) })).toBe(true);
    expect(evaluateExpr('matches(text, "(x+x+)+y")', { text: 'x'.repeat(5_000) })).toBe(false);
  });

  it('refuses what needs backtracking, and work past its limits, with a clear error', () => {
    const err = (source: string, scope = { text: 'aa' }) => {
      try {
        evaluateExpr(source, scope);
      } catch (e) {
        expect(e).toBeInstanceOf(ExprError);
        return (e as Error).message;
      }
      throw new Error(`${source} did not fail`);
    };
    expect(err('matches(text, "(a)\\\\1")')).toBe(
      'matches: unsupported pattern "(a)\\\\1": backreferences (\\1) are not supported: they need backtracking (matches() at column 1)',
    );
    expect(err('matches(text, "a(?=b)")')).toMatch(
      /^matches: unsupported pattern "a\(\?=b\)": lookahead and lookbehind .* are not supported: they need backtracking/,
    );
    expect(err('matches(text, "(?<!b)a")')).toMatch(/lookahead and lookbehind/);
    expect(err('matches(text, "(a{1000}){1000}")')).toMatch(
      /^matches: unsupported pattern .*: the pattern is too large \(more than 20000 states/,
    );
    expect(err('matches(text, "(")')).toMatch(/^matches: invalid pattern "\(": Invalid regular expression/);
    expect(() => compileLinearRegex('a*a*a*a*b', '', { maxWork: 1000 }).test('a'.repeat(1000))).toThrow(
      new LinearRegexError('the match took more than 1000 steps (the text is too long for this pattern)'),
    );
    expect(() => compileLinearRegex(`${'('.repeat(600)}a${')'.repeat(600)}`)).toThrow(
      /groups nest deeper than 500 levels/,
    );
  });
});
