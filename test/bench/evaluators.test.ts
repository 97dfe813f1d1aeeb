import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { emptyTokens, type Model, type ModelRequest, type ModelResponse } from '../../src/core/index.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import {
  defineSuite,
  exprScorer,
  judgeRuns,
  jsonField,
  jsonMatch,
  llmJudge,
  pairwiseJudge,
  renderPairwise,
  renderReport,
  runSuite,
  summarize,
  type ResultLine,
  type ScoreInput,
} from '../../src/bench/index.js';
import { ScorerSpec, buildScorer } from '../../src/bench/scorer-spec.js';
import { jsonDifference } from '../../src/bench/scorers/json-compare.js';
import { parseSuiteFile } from '../../src/bench/suite-file.js';
import { OracleAgent, numberTasks, tempDirs } from '../helpers/bench-fixtures.js';

const dirs = tempDirs();
afterEach(dirs.cleanup);

function input(answer: string | null, expected: unknown, extra: Partial<ScoreInput> = {}): ScoreInput {
  return {
    task: {
      id: 't',
      objective: 'q',
      inputs: {},
      resources: {},
      budget: {},
      successCriteria: [],
      metadata: {},
      expected,
    },
    answer,
    expected,
    stopReason: 'final',
    steps: 3,
    state: undefined,
    env: undefined,
    traceDir: null,
    signal: new AbortController().signal,
    ...extra,
  };
}

/** A judge model that decides by reading the prompt, as a real one would: `decide(prompt)` is its reply text. */
function promptJudge(decide: (prompt: string) => string, id = 'fake:judge'): Model & { prompts: string[] } {
  const prompts: string[] = [];
  return {
    id,
    prompts,
    async generate(req: ModelRequest): Promise<ModelResponse> {
      const prompt = (req.messages[0].content[0] as { text: string }).text;
      prompts.push(prompt);
      const text = decide(prompt);
      return {
        parts: [{ type: 'text', text }],
        usage: { ...emptyTokens(), input: 100, output: 10 },
        cost: 0.001,
        finishReason: 'stop',
      };
    },
  };
}

describe('json_match and the JSON comparison it shares with json_field', () => {
  it('exact wants the same keys everywhere; subset wants the expected ones; the first difference is named by path', async () => {
    const want = { total: 12.5, items: [{ sku: 'a', qty: 2 }] };
    const answer = 'Here you go:\n```json\n{"total": 12.49, "items": [{"sku": "a", "qty": 2, "note": "gift"}]}\n```';
    expect(await jsonMatch().score(input(answer, want))).toMatchObject({
      pass: false,
      explanation: '$.total is 12.49, expected 12.5',
    });
    expect(await jsonMatch({ tolerance: 0.02 }).score(input(answer, want))).toMatchObject({
      pass: false,
      explanation: '$.items[0] has the unexpected key "note"',
    });
    expect(await jsonMatch({ tolerance: 0.02, mode: 'subset' }).score(input(answer, want))).toMatchObject({
      pass: true,
      explanation: 'JSON matches (subset)',
    });
    expect(await jsonMatch({ mode: 'subset' }).score(input('{"items": []}', want))).toMatchObject({
      pass: false,
      explanation: '$.total is missing',
    });
    expect(await jsonMatch().score(input('{"a": [1, 2]}', { a: [1, 2, 3] }))).toMatchObject({
      explanation: '$.a has 2 items, expected 3',
    });
    expect(await jsonMatch().score(input('{"a b": "x"}', { 'a b': 'y' }))).toMatchObject({
      explanation: '$["a b"] is "x", expected "y"',
    });
    expect(await jsonMatch().score(input('no json here', want))).toMatchObject({
      pass: false,
      explanation: 'answer is not JSON: "no json here"',
    });
    expect(await jsonMatch().score(input(null, want))).toMatchObject({ pass: false, explanation: 'no answer' });
    expect(() => jsonMatch().score(input('{}', undefined))).toThrow(/needs the task to have an "expected" JSON value/);
  });

  it('json_field now applies its tolerance to numbers inside the field too', async () => {
    expect(
      (await jsonField({ path: 'r', tolerance: 0.1 }).score(input('{"r": {"x": 1.05}}', { r: { x: 1 } }))).pass,
    ).toBe(true);
    expect(await jsonField({ path: 'r' }).score(input('{"r": {"x": 1.05}}', { r: { x: 1 } }))).toMatchObject({
      pass: false,
      explanation: 'r.x is 1.05, expected 1',
    });
  });

  it('properties: a value matches itself in both modes; subset ignores added keys, exact names them', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ minLength: 1, maxLength: 5 }), (v, extraKey) => {
        expect(jsonDifference(v, v)).toBeUndefined();
        expect(jsonDifference(v, v, { mode: 'subset' })).toBeUndefined();
        if (v !== null && typeof v === 'object' && !Array.isArray(v) && !Object.hasOwn(v, extraKey)) {
          const bigger = { ...v, [extraKey]: 1 };
          expect(jsonDifference(bigger, v, { mode: 'subset' })).toBeUndefined();
          expect(jsonDifference(bigger, v)?.why).toBe(`has the unexpected key ${JSON.stringify(extraKey)}`);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('expr scorer', () => {
  const state = { finalResult: '42', metadata: { edits: 2, files: ['a.py'] }, messages: [] };

  it('a boolean is pass/fail, a number in [0, 1] is the score; it sees answer, expected, steps, tokens, cost, state, task', async () => {
    const usage = { tokens: { ...emptyTokens(), input: 900, output: 100 }, cost: 0.02, modelCalls: 2 };
    const s = exprScorer({
      expr: 'answer == expected && steps <= 5 && tokens < 2000 && cost < 0.05 && contains(state.metadata.files, "a.py") && task.id == "t"',
    });
    expect(await s.score(input('42', '42', { state: state as never, usage }))).toMatchObject({ pass: true, score: 1 });
    expect(await s.score(input('41', '42', { state: state as never, usage }))).toMatchObject({
      pass: false,
      score: 0,
      explanation: expect.stringMatching(/ is false$/),
    });
    const partial = exprScorer({ expr: 'state.metadata.edits / 4', threshold: 0.5 });
    expect(await partial.score(input('x', null, { state: state as never }))).toEqual({
      score: 0.5,
      pass: true,
      explanation: '"state.metadata.edits / 4" = 0.5',
    });
    expect(await exprScorer({ expr: 'cost ?? 0' }).score(input('x', null))).toMatchObject({ score: 0 });
  });

  it('a run without an answer fails; any other evaluation error is a scoring error; a bad value is one too', async () => {
    const s = exprScorer({ expr: 'contains(answer, "x")' });
    expect(await s.score(input(null, null))).toMatchObject({
      pass: false,
      explanation: 'no answer (contains needs a string or a list, got null (contains() at column 1))',
    });
    expect(() =>
      exprScorer({ expr: 'state.metadata.nope > 1' }).score(input('x', null, { state: state as never })),
    ).toThrow(/has no field "nope"/);
    expect(() => exprScorer({ expr: 'steps * 2' }).score(input('x', null))).toThrow(
      '"steps * 2" gave 6; it must give true or false, or a score from 0 to 1',
    );
  });

  it('a syntax error or an unknown name fails when the scorer is made', () => {
    expect(() => exprScorer({ expr: 'answer ==' })).toThrow(
      'expr scorer: unexpected end of the expression: an operand is missing',
    );
    expect(() => exprScorer({ expr: 'stat.x == 1 && anwser == ""' })).toThrow(
      'expr scorer: unknown names "stat", "anwser" in "stat.x == 1 && anwser == \\"\\""; an ' +
        'expression reads answer, expected, stopReason, steps, tokens, cost, state, task',
    );
  });

  it('suite.yaml picks evaluators like scorers, and a bad expression is reported with its line', async () => {
    const yaml = (scorer: string) => `name: s\ntasks: t.jsonl\nscorer:\n${scorer}\n`;
    const spec = parseSuiteFile(
      yaml('  type: expr\n  expr: \'stopReason == "final" && len(answer) < 20\''),
      'suite.yaml',
    );
    const built = await buildScorer(spec.scorer, { dir: '/tmp' });
    expect(built.name).toBe('expr');
    expect((await built.score(input('short', null))).pass).toBe(true);
    expect(() => parseSuiteFile(yaml('  type: expr\n  expr: "answer = 1"'), 'suite.yaml')).toThrow(
      'suite.yaml line 5, field "scorer.expr": expr scorer: unexpected character "=" at column 8; compare with ==',
    );
    expect(ScorerSpec.parse({ type: 'json_match', mode: 'subset', tolerance: 0.1 })).toEqual({
      type: 'json_match',
      mode: 'subset',
      tolerance: 0.1,
    });
    expect(() => parseSuiteFile(yaml('  type: json_match\n  mode: loose'), 'suite.yaml')).toThrow(
      /line 5, field "scorer.mode"/,
    );
    const judged = parseSuiteFile(
      yaml('  type: llm_judge\n  model: fake:judge\n  rubric: [cites the source, gives the unit]'),
      'suite.yaml',
    );
    const judge = promptJudge(() => '{"score": 1}');
    await (await buildScorer(judged.scorer, { dir: '/tmp', createModel: () => judge })).score(input('a', 'b'));
    expect(judge.prompts[0]).toContain('Grade against this rubric:\n- cites the source\n- gives the unit\n');
  });
});

describe('llm judge rubric and pairwise judge', () => {
  it('the default prompt without a rubric has no placeholder left', async () => {
    const judge = promptJudge(() => '{"score": 0}');
    await llmJudge(judge).score(input('a', 'b'));
    expect(judge.prompts[0]).not.toMatch(/\{\{|rubric/i);
    await llmJudge(judge, { rubric: 'Be strict about units.' }).score(input('a', 'b'));
    expect(judge.prompts[1]).toContain("Agent's answer:\na\n\nGrade against this rubric:\nBe strict about units.\n");
  });

  it('judges each pair in both orders; a consistent preference wins, and each call is paid for', async () => {
    // Prefers the answer that says "Paris", wherever it is shown.
    const judge = promptJudge((p) =>
      /Answer 1:\n[^\n]*Paris/.test(p)
        ? '{"winner": "1", "explanation": "names Paris"}'
        : /Answer 2:\n[^\n]*Paris/.test(p)
          ? '{"winner": "2", "explanation": "names Paris"}'
          : '{"winner": "tie"}',
    );
    const v = await pairwiseJudge(judge, { rubric: ['correct city'] }).judge({
      question: 'Capital of France?',
      a: 'Lyon',
      b: 'It is Paris',
    });
    expect(v).toMatchObject({ winner: 'b', votes: ['b', 'b'], consistent: true, explanation: 'names Paris' });
    expect(v.usage).toEqual({ tokens: { ...emptyTokens(), input: 200, output: 20 }, cost: 0.002, modelCalls: 2 });
    expect(judge.prompts).toHaveLength(2);
    expect(judge.prompts[0]).toMatch(/Answer 1:\nLyon\n\nAnswer 2:\nIt is Paris\n/);
    expect(judge.prompts[1]).toMatch(/Answer 1:\nIt is Paris\n\nAnswer 2:\nLyon\n/);
    expect(judge.prompts[0]).toContain('Compare on these criteria:\n- correct city');
  });

  it('a judge that always picks the first position gives a tie, marked inconsistent; a reply without a winner throws', async () => {
    const biased = new ScriptedModel(['{"winner": "1", "explanation": "first is better"}'], { loop: true });
    const v = await pairwiseJudge(biased).judge({ question: 'q', a: 'x', b: 'y' });
    expect(v).toMatchObject({ winner: 'tie', votes: ['a', 'b'], consistent: false });
    expect(v.explanation).toMatch(/^the two orders disagree \(A first: a; B first: b\), counted as a tie/);
    const chatty = new ScriptedModel(['Answer 2 is better.'], { loop: true, id: 'scripted:chatty' });
    await expect(pairwiseJudge(chatty).judge({ question: 'q', a: 'x', b: 'y' })).rejects.toThrow(
      /pairwise judge scripted:chatty did not reply with \{"winner"/,
    );
  });

  it('judgeRuns compares two bench runs answer by answer, with the task text from the traces', async () => {
    // Run A answers right on even tasks; run B answers right everywhere. The judge prefers the right answer.
    const tasks = numberTasks(6);
    const a = dirs.make();
    const b = dirs.make();
    await runSuite({
      suite: defineSuite({ name: 'n', tasks, scorer: exprScorer({ expr: 'answer == expected' }) }),
      agentFactory: () => new OracleAgent(),
      outDir: a,
    });
    const right = tasks.map((t) => ({ ...t, inputs: { answer: t.expected } }));
    await runSuite({
      suite: defineSuite({ name: 'n', tasks: right, scorer: exprScorer({ expr: 'answer == expected' }) }),
      agentFactory: () => new OracleAgent(),
      outDir: b,
    });
    const judge = promptJudge((p) => {
      const n = Number(/What is (\d+) \+ 1\?/.exec(p)![1]);
      const [first, second] = [/Answer 1:\n(.*)\n/.exec(p)![1], /Answer 2:\n(.*)\n/.exec(p)![1]];
      return `{"winner": "${Number(first) === n + 1 ? '1' : Number(second) === n + 1 ? '2' : 'tie'}"}`;
    });
    const c = await judgeRuns(a, b, pairwiseJudge(judge), { concurrency: 2, displayDirs: ['runs/a', 'runs/b'] });
    expect(c).toMatchObject({
      pairs: 6,
      bWins: 3,
      aWins: 0,
      ties: 3,
      identical: 3,
      inconsistent: 0,
      unanswered: 0,
      a: 'runs/a',
      b: 'runs/b',
      warnings: [],
    });
    expect(c.usage.modelCalls).toBe(6); // three differing pairs, two orders each; the same answers cost nothing
    expect(c.bWinRate).toMatchObject({ wins: 3, decided: 3, rate: 1 });
    expect(c.pValue).toBeCloseTo(0.25, 12); // sign test, 3 of 3: 2 * (1/2)^3
    expect(c.verdicts.find((v) => v.taskId === 't001')).toMatchObject({ winner: 'b', by: 'judge' });
    const text = renderPairwise(c);
    expect(text).toContain('**B wins 3, A wins 0, ties 3** of 6 paired trials');
    expect(text).toContain('Judge cost: 6 calls, 660 tokens, $0.0060');
  });
});

describe('metrics: cost and tokens per success, and what scoring cost', () => {
  let n = 0;
  const line = (pass: boolean, extra: Partial<ResultLine> = {}): ResultLine => ({
    taskId: `t${n++}`,
    epoch: 1,
    pass,
    score: pass ? 1 : 0,
    explanation: '',
    stopReason: 'final',
    steps: 1,
    tokens: 1000,
    tokenDetail: emptyTokens(),
    cost: 0.01,
    modelCalls: 1,
    durationMs: 1,
    traceDir: null,
    runId: null,
    answer: 'x',
    error: null,
    errorKind: null,
    finishedAt: '',
    ...extra,
  });

  it('divides the agent totals by the passes, and keeps the judge apart', () => {
    const judged = { tokens: { ...emptyTokens(), input: 50, output: 5 }, cost: 0.0005, modelCalls: 1 };
    const lines = [line(true, { scorerUsage: judged }), line(false, { scorerUsage: judged }), line(false), line(true)];
    const s = summarize(lines, {
      suite: 's',
      model: null,
      agent: null,
      epochs: 1,
      shard: null,
      taskIds: lines.map((l) => l.taskId),
    });
    expect(s.perSuccess.tokens).toBe(2000);
    expect(s.perSuccess.cost).toBeCloseTo(0.02, 12);
    expect(s.scoring).toEqual({ modelCalls: 2, tokens: 110, cost: 0.001 });
    expect(s.totals.tokens).toBe(4000);
    const report = renderReport(s);
    expect(report).toContain('Per success (totals / 2 passed): 2000 tokens, $0.0200.');
    expect(report).toContain('Scoring (LLM judge, not in the figures above): 2 calls, 110 tokens, $0.0010.');
    const none = summarize([line(false, { cost: null })], {
      suite: 's',
      model: null,
      agent: null,
      epochs: 1,
      shard: null,
      taskIds: [],
    });
    expect(none.perSuccess).toEqual({ tokens: null, cost: null });
  });

  it('a suite scored by an LLM judge records the judge usage per trial and in the summary', async () => {
    const dir = dirs.make();
    const judge = promptJudge((p) =>
      /Reference answer:\n(\d+)\n\nAgent's answer:\n\1\n/.test(p) ? '{"score": 1}' : '{"score": 0}',
    );
    const r = await runSuite({
      suite: defineSuite({ name: 'j', tasks: numberTasks(4), scorer: llmJudge(judge) }),
      agentFactory: () => new OracleAgent(),
      outDir: dir,
      concurrency: 2,
    });
    expect(r.summary.passRate.passed).toBe(2);
    expect(r.summary.scoring).toEqual({ modelCalls: 4, tokens: 440, cost: 0.004 });
    const first = JSON.parse(readFileSync(join(dir, 'results.jsonl'), 'utf8').split('\n')[0]);
    expect(first.scorerUsage).toMatchObject({ modelCalls: 1, cost: 0.001 });
    expect(first.tokens).toBe(0); // the agent's own tokens stay the agent's
  });
});
