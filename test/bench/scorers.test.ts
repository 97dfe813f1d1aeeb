import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import {
  contains,
  custom,
  exactMatch,
  gaiaMatch,
  jsonField,
  llmJudge,
  numeric,
  regex,
  DEFAULT_JUDGE_PROMPT,
  type ScoreInput,
  type Scorer,
} from '../../src/bench/index.js';
import { extractNumber } from '../../src/bench/scorers/numeric.js';
import { gaiaQuestionScore } from '../../src/bench/scorers/gaia-match.js';

function input(answer: string | null, expected: unknown, objective = 'q'): ScoreInput {
  return {
    task: { id: 't', objective, inputs: {}, resources: {}, budget: {}, successCriteria: [], metadata: {}, expected },
    answer,
    expected,
    stopReason: 'final',
    steps: 1,
    state: undefined,
    env: undefined,
    traceDir: null,
    signal: new AbortController().signal,
  };
}
const score = (s: Scorer, answer: string | null, expected: unknown) => s.score(input(answer, expected));

describe('exactMatch', () => {
  it('trims and collapses whitespace by default, case-sensitive', async () => {
    expect(await score(exactMatch(), '  Paris \n', 'Paris')).toMatchObject({ pass: true, score: 1 });
    expect(await score(exactMatch(), 'New   York', 'New York')).toMatchObject({ pass: true });
    expect(await score(exactMatch(), 'paris', 'Paris')).toMatchObject({
      pass: false,
      score: 0,
      explanation: '"paris" does not equal "Paris"',
    });
  });
  it('normalises by option and accepts any of a list', async () => {
    expect((await score(exactMatch({ ignoreCase: true, stripPunctuation: true }), 'Paris!', 'paris')).pass).toBe(true);
    expect((await score(exactMatch({ removeWhitespace: true }), '1 000', '1000')).pass).toBe(true);
    expect((await score(exactMatch(), 'NYC', ['New York', 'NYC'])).explanation).toBe('matches "NYC"');
    expect((await score(exactMatch(), '42', 42)).pass).toBe(true);
  });
  it('fails with no answer, and refuses a task without an expected answer', async () => {
    expect(await score(exactMatch(), null, 'x')).toMatchObject({ pass: false, explanation: 'no answer' });
    expect(() => score(exactMatch(), 'x', undefined)).toThrow(/needs the task to have an "expected"/);
  });
});

describe('contains, regex, numeric', () => {
  it('contains', async () => {
    expect((await score(contains({ ignoreCase: true }), 'The capital is PARIS.', 'paris')).pass).toBe(true);
    expect((await score(contains(), 'Lyon', ['Paris', 'Marseille'])).pass).toBe(false);
  });
  it('regex from the option or from expected, optionally anchored', async () => {
    expect((await score(regex({ pattern: '\\d{4}-\\d{2}' }), 'on 2024-05', null)).pass).toBe(true);
    expect((await score(regex(), 'answer: B', '^answer: [A-D]$')).pass).toBe(true);
    expect((await score(regex({ fullMatch: true }), 'B and C', '[A-D]')).pass).toBe(false);
    expect(() => score(regex(), 'x', 42)).toThrow(/needs "expected" to be a pattern string/);
    expect(() => regex({ pattern: '(' })).toThrow(/invalid regex/);
  });
  it('numeric reads the last number and applies tolerances', async () => {
    expect(extractNumber('1,234.5')).toBe(1234.5);
    expect(extractNumber('so the answer is 42.')).toBe(42);
    expect(extractNumber('between 3 and -7e2')).toBe(-700);
    expect(extractNumber('none')).toBeNaN();
    expect((await score(numeric(), 'It is 0.30000000000000004', 0.3)).pass).toBe(true);
    expect((await score(numeric({ tolerance: 0.01 }), '3.14', '3.14159')).pass).toBe(true);
    expect((await score(numeric({ relTolerance: 0.05 }), '104', 100)).pass).toBe(true);
    expect(await score(numeric(), '101', 100)).toMatchObject({ pass: false, explanation: '101 differs from 100 by 1' });
    expect(await score(numeric(), 'no idea', 100)).toMatchObject({
      pass: false,
      explanation: 'no number in answer "no idea"',
    });
    expect(() => score(numeric(), '1', 'many')).toThrow(/needs "expected" to be a number/);
  });
  it('numeric accepts any number within the tolerance and no number outside it (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.double({ min: -1e6, max: 1e6, noNaN: true }),
        fc.double({ min: -2, max: 2, noNaN: true }),
        async (want, off) => {
          const s = await score(numeric({ tolerance: 1 }), `result: ${want + off}`, want);
          const got = extractNumber(`result: ${want + off}`);
          expect(s.pass).toBe(Math.abs(got - want) <= 1);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('jsonField', () => {
  it('compares a field of the JSON answer (fenced or embedded) with the expected field', async () => {
    const s = jsonField({ path: 'result.total' });
    expect((await score(s, 'Here:\n```json\n{"result": {"total": 12}}\n```', { result: { total: 12 } })).pass).toBe(
      true,
    );
    expect((await score(s, 'prefix {"result": {"total": 13}} suffix', 12)).explanation).toBe(
      'result.total is 13, expected 12',
    );
    expect((await score(s, 'not json', 12)).explanation).toMatch(/not JSON/);
    expect((await score(s, '{"result": {}}', 12)).explanation).toBe('answer has no field result.total');
    expect((await score(jsonField({ path: 'items[1].id' }), '{"items":[{"id":"a"},{"id":"b"}]}', 'b')).pass).toBe(true);
    expect((await score(jsonField({ path: 'x', tolerance: 0.1 }), '{"x": 1.05}', 1)).pass).toBe(true);
    expect(
      (await score(jsonField({ path: 'tags' }), '{"tags": {"b": 1, "a": 2}}', { tags: { a: 2, b: 1 } })).pass,
    ).toBe(true);
  });
});

describe('custom', () => {
  it('accepts a Score, a boolean or a number', async () => {
    expect(
      await score(
        custom(() => false),
        'x',
        1,
      ),
    ).toMatchObject({ pass: false, score: 0 });
    expect(
      await score(
        custom(() => 0.5),
        'x',
        1,
      ),
    ).toMatchObject({ pass: false, score: 0.5 });
    expect(
      await score(
        custom(async () => ({ score: 1, pass: true, explanation: 'ok' })),
        'x',
        1,
      ),
    ).toEqual({ score: 1, pass: true, explanation: 'ok' });
  });
});

describe('GAIA scoring', () => {
  it('numbers: strips $, %, commas and units and compares as floats', () => {
    expect(gaiaQuestionScore('$1,234', '1234')).toBe(true);
    expect(gaiaQuestionScore('17 km', '17')).toBe(true);
    expect(gaiaQuestionScore('45%', '45')).toBe(true);
    expect(gaiaQuestionScore('0.50', '0.5')).toBe(true);
    expect(gaiaQuestionScore('about 17', '17')).toBe(false);
    expect(gaiaQuestionScore('18', '17')).toBe(false);
  });
  it('lists: splits on commas and semicolons and compares element-wise', () => {
    expect(gaiaQuestionScore('apple, Banana; 3', 'apple,banana,3.0')).toBe(true);
    expect(gaiaQuestionScore('apple, banana', 'apple, banana, cherry')).toBe(false);
    expect(gaiaQuestionScore('banana, apple', 'apple, banana')).toBe(false);
    // List strings keep their punctuation (as the official scorer).
    expect(gaiaQuestionScore('St. Louis, Paris', 'St Louis, Paris')).toBe(false);
  });
  it('strings: lowercase, no whitespace, no punctuation; "FINAL ANSWER:" is removed', () => {
    expect(gaiaQuestionScore('  The Beatles! ', 'the beatles')).toBe(true);
    expect(gaiaQuestionScore('FINAL ANSWER: Right-handed', 'right handed')).toBe(true);
    expect(gaiaQuestionScore(null, 'None')).toBe(true);
    expect(gaiaQuestionScore('Rolling Stones', 'The Beatles')).toBe(false);
  });
  it('a string answer always matches itself after normalisation (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 30 }).filter((s) => s.trim() !== '' && !/[,;]/.test(s)),
        (s) => {
          expect(gaiaQuestionScore(`  ${s.toUpperCase()} `, s)).toBe(gaiaQuestionScore(s, s));
        },
      ),
    );
  });
  it('the gaia scorer explains and needs a truth', async () => {
    expect(await score(gaiaMatch(), '3', '3')).toMatchObject({
      pass: true,
      explanation: 'matches "3" (GAIA normalised)',
    });
    expect(() => score(gaiaMatch(), '3', undefined)).toThrow(/Final answer/);
  });
});

describe('llmJudge', () => {
  it('sends the documented prompt with the task, reference and answer, and reads the JSON verdict', async () => {
    const judge = new ScriptedModel(
      [{ text: '{"score": 0.8, "explanation": "same city"}', usage: { input: 120, output: 9 }, cost: 0.002 }],
      { id: 'scripted:judge' },
    );
    const s = await llmJudge(judge).score(input('The capital is Paris', 'Paris', 'Capital of France?'));
    // The judge's own spend comes back with the score, so the suite can report it.
    expect(s).toEqual({
      score: 0.8,
      pass: true,
      explanation: 'judge: 0.8 (same city)',
      usage: {
        tokens: { input: 120, output: 9, reasoning: 0, cache: { read: 0, write: 0 } },
        cost: 0.002,
        modelCalls: 1,
      },
    });
    const sent = judge.requests[0];
    const text = (sent.messages[0].content[0] as { text: string }).text;
    expect(text).toContain('Task:\nCapital of France?');
    expect(text).toContain('Reference answer:\nParis');
    expect(text).toContain("Agent's answer:\nThe capital is Paris");
    expect(sent.temperature).toBe(0);
    expect(DEFAULT_JUDGE_PROMPT).toContain('{{answer}}');
  });
  it('applies the threshold, and throws on a reply that is not the verdict asked for', async () => {
    const low = new ScriptedModel(['```json\n{"score": 0.4}\n```']);
    expect((await llmJudge(low, { threshold: 0.5 }).score(input('x', 'y'))).pass).toBe(false);
    const chatty = new ScriptedModel(['I think it is right.']);
    await expect(llmJudge(chatty).score(input('x', 'y'))).rejects.toThrow(/did not reply with \{"score": 0..1/);
  });
});
