import { describe, expect, it } from 'vitest';
import {
  EXPR_FUNCTIONS,
  ExprError,
  evaluateCondition,
  evaluateExpr,
  formatValue,
  parseExpr,
  type ExprFunction,
  type ExprValue,
} from '../../../src/kit/expr/index.js';

const scope = {
  answer: 'The total is 1,234.5 apples',
  expected: null,
  steps: 4,
  state: {
    finalResult: 'done',
    metadata: { attempts: 2, tags: ['fast', 'safe'], nested: { deep: [{ v: 1 }, { v: 2 }] } },
    messages: [
      { role: 'user', text: 'hi' },
      { role: 'assistant', text: 'hello' },
    ],
    plan: [],
  },
};
const ev = (src: string, s: Record<string, unknown> = scope) => evaluateExpr(src, s);

describe('evaluateExpr: values', () => {
  const table: Array<[string, unknown]> = [
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['2 ^ 3 ^ 2', 512],
    ['-2 ** 2', -4],
    ['7 % 4 - 10 / 4', 0.5],
    ['"a" + \'b\'', 'ab'],
    ['[1, 2] + [3]', [1, 2, 3]],
    ['true && !false', true],
    ['false || 1 > 2', false],
    ['steps >= 4 && steps < 5', true],
    ['state.metadata.attempts', 2],
    ['state.metadata.tags[1]', 'safe'],
    ['state.metadata.tags[-1]', 'safe'],
    ['state["metadata"]["attempts"]', 2],
    ['state.metadata.nested.deep[1].v', 2],
    ['state.messages.length', 2],
    ['answer.length', 27],
    ['state.messages[-1].role == "assistant"', true],
    ['state?.nothing?.deeper ?? "default"', 'default'],
    ['state.metadata?.attempts', 2],
    ['expected ?? "none"', 'none'],
    ['state.plan?.[0] ?? "no plan"', 'no plan'],
    ['len(state.metadata.tags) == 2 ? "two" : "other"', 'two'],
    ['"fast" in state.metadata.tags', true],
    ['"total" in answer', true],
    ['"attempts" in state.metadata', true],
    ['state.metadata == {attempts: 2, tags: ["fast", "safe"], nested: {deep: [{v: 1}, {v: 2}]}}', true],
    ['[1, [2, {a: null}]] == [1, [2, {"a": null}]]', true],
    ['1 == "1"', false],
    ['{a: 1} != {a: 1, b: 2}', true],
    ['"abc" < "abd"', true],
    ['contains(answer, "apples") && startsWith(answer, "The") && endsWith(answer, "apples")', true],
    ['matches(answer, "total is [0-9,.]+")', true],
    ['matches(answer, "^the", "i")', true],
    ['matches("a1", "\\d")', true], // an unknown escape is kept, as in Python: regexes read naturally
    ["\"\\x41\\u0042\\n\" + '\\''", "AB\n'"],
    ['lower(upper(" Ab "))', ' ab '],
    ['trim("  x ")', 'x'],
    ['split("a,b", ",")', ['a', 'b']],
    ['join(state.metadata.tags, "+")', 'fast+safe'],
    ['slice(answer, -6)', 'apples'],
    ['slice([1, 2, 3], 1, 2)', [2]],
    ['keys(state.metadata)', ['attempts', 'tags', 'nested']],
    ['has(state.metadata, "tags") && !has(state.metadata, "x") && has([1], -1)', true],
    ['type(null) + type([]) + type({}) + type("") + type(1) + type(true)', 'nulllistobjectstringnumberboolean'],
    ['number(" 12.5 ") + 1', 13.5],
    ['string([1, "a"])', '[1, "a"]'],
    ['sum([1, 2, 3.5])', 6.5],
    ['max([3, 9, 2]) + min(4, 1)', 10],
    ['round(2.567, 2)', 2.57],
    ['abs(-3) + sqrt(16)', 7],
    ['{"a b": 1, c: [true, null],}', { 'a b': 1, c: [true, null] }],
    ['a ?.5 : 1', 0.5],
    ['1 / (10 ^ 400)', 0],
  ];
  for (const [src, want] of table)
    it(`${src} -> ${JSON.stringify(want)}`, () => expect(ev(src, { ...scope, a: true })).toEqual(want));

  it('reads an undefined scope entry as null', () => expect(ev('x == null', { x: undefined })).toBe(true));

  it('short-circuits: the right side of && / || / ?? / ?: is not evaluated when not needed', () => {
    expect(ev('false && nope.x')).toBe(false);
    expect(ev('true || nope.x')).toBe(true);
    expect(ev('1 ?? nope.x')).toBe(1);
    expect(ev('true ? 1 : nope.x')).toBe(1);
  });

  it('parses once and evaluates often; lists the names and functions used', () => {
    const e = parseExpr('state.metadata.attempts > limit && contains(answer, word)');
    expect(e.names).toEqual(['state', 'limit', 'answer', 'word']);
    expect(e.functions).toEqual(['contains']);
    expect(evaluateExpr(e, { ...scope, limit: 1, word: 'apples' })).toBe(true);
    expect(evaluateExpr(e, { ...scope, limit: 5, word: 'apples' })).toBe(false);
  });

  it('takes extra functions; a function that throws anything becomes an ExprError with the call column', () => {
    const functions: Record<string, ExprFunction> = {
      ...EXPR_FUNCTIONS,
      double: { arity: [1, 1], fn: ([x]) => (x as number) * 2 },
      boom: {
        arity: [0, 0],
        fn: () => {
          throw new TypeError('kaput');
        },
      },
    };
    expect(evaluateExpr('double(21)', {}, { functions })).toBe(42);
    expect(() => evaluateExpr('1 + boom()', {}, { functions })).toThrow('boom() at column 5 failed: kaput');
    expect(() => evaluateExpr('len("a")', {}, { functions: {} })).toThrow(/unknown function "len" at column 1/);
  });

  it('evaluateCondition insists on true or false', () => {
    expect(evaluateCondition('steps > 1', scope)).toBe(true);
    expect(() => evaluateCondition('steps + 1', scope)).toThrow(
      'the condition must be true or false, but it gave the number 5',
    );
  });

  it('list and object literals are built fresh or frozen: a caller cannot change the next evaluation', () => {
    const e = parseExpr('[1, 2]');
    const first = evaluateExpr(e, {}) as number[];
    expect(() => first.push(3)).toThrow(TypeError);
    expect(evaluateExpr(e, {})).toEqual([1, 2]);
    const built = parseExpr('[steps, 2]');
    (evaluateExpr(built, { steps: 1 }) as number[]).push(9);
    expect(evaluateExpr(built, { steps: 1 })).toEqual([1, 2]);
  });
});

describe('evaluateExpr: errors name the problem and the column', () => {
  const errors: Array<[string, string | RegExp, number | undefined]> = [
    ['', 'the expression is empty', undefined],
    ['1 +', 'unexpected end of the expression: an operand is missing', 4],
    ['(1', 'expected ")" but found the end of the expression', 3],
    ['1 + 2)', 'unexpected ")" at column 6', 6],
    ['x = 1', 'unexpected character "=" at column 3; compare with ==', 3],
    ['a & b', 'unexpected character "&" at column 3; "and" is &&', 3],
    ['"abc', 'the string starting with " is not closed (column 1)', 1],
    ['"\\x4"', 'bad escape \\x4": expected 2 hex digits (column 2)', 2],
    ['nope + 1', /^unknown name "nope" at column 1; known names: answer, expected, steps, state$/, 1],
    ['len', 'function "len" at column 1 needs arguments in parentheses, e.g. len(2)', 1],
    ['foo(1)', /^unknown function "foo" at column 1; known: sqrt, /, 1],
    ['len(1, 2)', 'len takes 1 argument, got 2', 1],
    [
      'state.metadata.missing',
      'an object has no field "missing" at column 16 (its fields: attempts, tags, nested)',
      16,
    ],
    ['expected.x', 'cannot read field "x" at column 10: the value is null (use ?. to read null as null)', 10],
    ['state.metadata.tags[5]', 'a list of 2 items has no [5] at column 20', 20],
    ['state.metadata.tags["a"]', 'a list of 2 items is read by an integer index, not ["a"] at column 20', 20],
    ['steps.x', 'cannot read field "x" at column 7 of the number 4', 7],
    ['1 < 2 < 3', /^comparisons do not chain: "<" at column 7 follows "<"/, 7],
    ['"a" < 1', '"<" at column 5 compares two numbers or two strings, got the string "a" and the number 1', 5],
    ['"a" + 1', '"+" at column 5 adds two numbers, two strings or two lists, got the string "a" and the number 1', 5],
    ['1 && true', '"&&" at column 3 needs true or false, got the number 1', 3],
    ['!"x"', '"!" at column 1 needs true or false, got the string "x"', 1],
    ['steps ? 1 : 2', '"?" at column 7 needs true or false, got the number 4', 7],
    ['-"x"', '"-" at column 1 needs a number, got the string "x"', 1],
    ['1 / 0', 'division by zero at column 3', 3],
    ['1 % 0', 'division by zero at column 3', 3],
    ['sqrt(-1)', /^the result of sqrt\(\) at column 1 is not a number/, 1],
    ['10 ^ 400', 'the result is infinite (overflow)', undefined],
    ['1 in 2', /^"in" at column 3 needs a list/, 3],
    ['len(5)', 'len needs a string, a list or an object, got the number 5 (len() at column 1)', 1],
    ['matches("a", "(")', /^matches: invalid pattern "\(": .* \(matches\(\) at column 1\)$/, 1],
    ['matches("a", "a", "g")', /^matches: flags are letters of "imsu"/, 1],
    ['number("x1")', 'number: cannot read a number from the string "x1" (number() at column 1)', 1],
    [
      'answer.startsWith("x")',
      'cannot call "startsWith" at column 8 as a method: helpers are functions, e.g. startsWith(value, ...)',
      8,
    ],
    ['(steps)(1)', 'only helper functions can be called, by name: "(" at column 8 follows a value', 8],
    ['{1: 2}', 'expected a key (a name or a string) but found "1" at column 2', 2],
    ['state.', 'expected a field name after "." but found the end of the expression', 7],
    ['in', 'unexpected "in" at column 1', 1],
  ];
  for (const [src, msg, column] of errors) {
    it(`${JSON.stringify(src)}`, () => {
      let caught: unknown;
      try {
        ev(src);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(ExprError);
      const e = caught as ExprError;
      if (typeof msg === 'string') expect(e.message).toBe(msg);
      else expect(e.message).toMatch(msg);
      expect(e.column).toBe(column);
    });
  }

  it('refuses sources over the length limit and nesting over the depth limit', () => {
    expect(() => parseExpr('1+'.repeat(6000) + '1')).toThrow(
      'the expression is 12001 characters long; the limit is 10000',
    );
    expect(() => parseExpr('1+1', { maxLength: 2 })).toThrow('the expression is 3 characters long; the limit is 2');
    expect(() => parseExpr('['.repeat(201) + ']'.repeat(201))).toThrow(/nests deeper than 200 levels/);
    expect(() => parseExpr('!'.repeat(250) + 'true')).toThrow(/nests deeper than 200 levels/);
    expect(() => parseExpr('(1)', { maxDepth: 1 })).toThrow(/nests deeper than 1 levels/);
    // A long flat chain is not deep: it is evaluated in a loop.
    expect(evaluateExpr('1+'.repeat(4000) + '1', {})).toBe(4001);
    expect(evaluateExpr('x' + '.a'.repeat(3000), { x: nest(3000) })).toBe(1);
  });

  it('refuses a scope that is not a plain object, and data that is not plain', () => {
    expect(() => evaluateExpr('1', [] as never)).toThrow('the scope must be a plain object of names to values');
    expect(() => ev('f', { f: () => 1 })).toThrow(
      '"f" is a function, not data: expressions read only null, booleans, numbers, strings, lists and plain objects',
    );
    expect(() => ev('m.size', { m: new Map() })).toThrow(
      /"m" is an object that is not a plain object or list, not data/,
    );
    expect(() => ev('o.d', { o: { d: new Date(0) } })).toThrow(
      /field "d" at column 3 is an object that is not a plain object or list, not data/,
    );
    expect(() => ev('o.f', { o: { f: Math.max } })).toThrow(/field "f" at column 3 is a function, not data/);
  });
});

describe('no way to a prototype', () => {
  it('refuses the prototype names as fields, at parse time and as computed keys', () => {
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      expect(() => parseExpr(`state.${name}`)).toThrow(
        `field "${name}" at column 7 is not allowed: expressions do not reach prototypes`,
      );
      expect(() => ev(`state["${name}"]`)).toThrow(
        `["${name}"] at column 6 is not allowed: expressions do not reach prototypes`,
      );
      expect(() => ev(`state?.["${name}"]`)).toThrow(/is not allowed/);
    }
  });

  it('reads only own fields: inherited ones are missing', () => {
    expect(() => ev('state.toString')).toThrow(/has no field "toString"/);
    expect(() => ev('state.hasOwnProperty')).toThrow(/has no field "hasOwnProperty"/);
    expect(ev('state?.valueOf')).toBe(null);
    expect(() => ev('answer.charAt')).toThrow(/is read by an integer index/);
    expect(() => ev('"toString" in state')).not.toThrow();
    expect(ev('"toString" in state')).toBe(false);
    expect(() => ev('toString')).toThrow(/^unknown name "toString"/);
    expect(() => ev('constructor(1)')).toThrow(/^unknown function "constructor"/);
  });

  it('an own "__proto__" key from JSON is counted but never read; an object literal with that key does not change a prototype', () => {
    const data = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}');
    expect(ev('len(d) * 10 + d.x', { d: data })).toBe(21);
    expect(() => ev('d["__proto__"]', { d: data })).toThrow(/is not allowed/);
    expect(ev('keys(d)', { d: data })).toEqual(['__proto__', 'x']);
    const made = ev('{"__proto__": {"polluted": true}}', {}) as Record<string, unknown>;
    expect(Object.getPrototypeOf(made)).toBe(Object.prototype);
    expect(Object.keys(made)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('formatValue', () => {
  it('writes literals that read back', () => {
    expect(formatValue({ a: [1, -0, 'x"y\n'], b: null, 'c d': true })).toBe(
      '{"a": [1, -0, "x\\"y\\n"], "b": null, "c d": true}',
    );
    expect(Object.is(evaluateExpr(formatValue(-0), {}), -0)).toBe(true);
    expect(() => formatValue(Number.NaN)).toThrow(ExprError);
    expect(() => formatValue(nest(2000) as ExprValue)).toThrow('the value nests deeper than 1000 levels');
  });
});

function nest(depth: number): Record<string, unknown> | number {
  let v: Record<string, unknown> | number = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}
