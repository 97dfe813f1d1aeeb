import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ActionResult, Model, ModelResponse, RequestHashes, StepRecord, ToolState } from '../../src/core/index.js';
import { canonicalJson, defineTool, emptyTokens, responseText } from '../../src/core/index.js';
import { Engine } from '../../src/index.js';
import { ScriptedModel } from '../../src/models/index.js';
import { jsonParser } from '../../src/kit/parsers/index.js';
import { ReplayDriftError, ReplayExecutor, ReplayModel, readTrace, shortHash } from '../../src/trace/index.js';
import { actContext } from '../../src/kit/testing/tool-context.js';
import { ModelPathAgent, tempDir } from '../helpers/kernel-fixtures.js';

const hashes = (over: Partial<RequestHashes> = {}): RequestHashes => ({
  request: 'r',
  system: 's',
  messages: 'm',
  tools: 't',
  params: 'p',
  ...over,
});
const response = (text: string): ModelResponse => ({
  parts: [{ type: 'text', text }],
  usage: emptyTokens(),
  cost: 0,
  finishReason: 'stop',
});
const step = (n: number, extra: Partial<StepRecord>): StepRecord => ({
  step: n,
  startedAt: 0,
  durationMs: 1,
  phases: {},
  observation: null,
  decision: null,
  results: [],
  stateDiff: {},
  ...extra,
});
const done = (output: string): ToolState => ({
  status: 'completed',
  input: {},
  output,
  time: { created: 1, start: 2, end: 3 },
});
const result = (name: string, output: string): ActionResult => ({
  actionId: 'old',
  name,
  status: 'success',
  output,
  latencyMs: 1,
  state: done(output),
});

describe('ReplayModel', () => {
  const steps = [
    step(1, { model: { hashes: hashes(), messageCount: 2, response: response('one'), latencyMs: 1 } }),
    step(2, { error: { kind: 'model_transport', message: 'reset', recovered: true } }),
    step(3, {
      model: { hashes: hashes({ messages: 'm3' }), messageCount: 4, response: response('three'), latencyMs: 1 },
    }),
  ];

  it('serves recorded responses in order, replays recorded model errors, and streams like a provider', async () => {
    const m = new ReplayModel(steps, { id: 'openai:x' });
    const events: string[] = [];
    const r1 = await m.generate({ messages: [] }, { requestHashes: hashes(), onEvent: (e) => events.push(e.type) });
    expect(r1).toEqual(response('one'));
    expect(events).toEqual(['step-start', 'text-delta', 'step-finish']);
    await expect(m.generate({ messages: [] }, { requestHashes: hashes() })).rejects.toMatchObject({
      name: 'ModelError',
      kind: 'model_transport',
    });
    expect(await m.generate({ messages: [] }, { requestHashes: hashes({ messages: 'm3' }) })).toEqual(
      response('three'),
    );
    await expect(m.generate({ messages: [] }, { requestHashes: hashes() })).rejects.toThrow(
      'replay drift after step 3: the recorded run made 3 model calls and the replay asked for one more',
    );
  });

  it('names every part that differs, and with allowDrift serves anyway', async () => {
    const strict = new ReplayModel(steps, { id: 'x:y' });
    const err = await strict
      .generate({ messages: [] }, { requestHashes: hashes({ system: 'S', params: 'P' }) })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ReplayDriftError);
    expect(err.message).toBe('replay drift at step 1: the model request differs in system prompt, model params');
    const loose = new ReplayModel(steps, { id: 'x:y', allowDrift: true });
    expect(await loose.generate({ messages: [] }, { requestHashes: hashes({ tools: 'T' }) })).toEqual(response('one'));
    // steps without a trace's events hold no recorded tool specs: the drift says so instead of diffing
    expect(loose.drifts).toEqual([
      {
        step: 1,
        parts: ['tools'],
        message: 'replay drift at step 1: the model request differs in tool schemas',
        texts: [
          {
            part: 'tools',
            diff: null,
            note: 'the trace does not hold the recorded tool specs (written before traces recorded them)',
          },
        ],
      },
    ]);
  });

  it(
    "a recorded run without a system prompt, replayed by an agent that now sends its parser's " +
      'instructions: the drift diffs them and names the fix',
    async () => {
      const rec = hashes({ system: shortHash(''), tools: shortHash('[]'), params: shortHash(canonicalJson({})) });
      const m = new ReplayModel(
        [step(1, { model: { hashes: rec, messageCount: 1, response: response('ok'), latencyMs: 1 } })],
        { id: 'x:y', allowDrift: true },
      );
      await m.generate({
        messages: [
          { role: 'system', content: 'Reply with JSON.' },
          { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        ],
      });
      expect(m.drifts).toHaveLength(1);
      expect(m.drifts[0]!.parts).toEqual(['system']);
      const text = m.drifts[0]!.texts![0]!;
      expect(text.diff).toContain('+Reply with JSON.');
      expect(text.note).toMatch(
        /recorded run sent no system prompt.*override buildSystemPrompt\(\) to return undefined/,
      );
    },
  );

  it('without the engine hashes it checks system, tools and params from the request itself', async () => {
    const rec = hashes({
      system: shortHash('sys'),
      tools: shortHash('[]'),
      params: shortHash(canonicalJson({ temperature: 0 })),
    });
    const m = new ReplayModel(
      [step(1, { model: { hashes: rec, messageCount: 1, response: response('ok'), latencyMs: 1 } })],
      { id: 'x:y' },
    );
    await expect(m.generate({ messages: [{ role: 'system', content: 'sys' }], temperature: 1 })).rejects.toThrow(
      'differs in model params',
    );
    const m2 = new ReplayModel(
      [step(1, { model: { hashes: rec, messageCount: 1, response: response('ok'), latencyMs: 1 } })],
      { id: 'x:y' },
    );
    expect(
      await m2.generate({
        messages: [
          { role: 'system', content: 'sys' },
          { role: 'user', content: [{ type: 'text', text: 'anything' }] },
        ],
        temperature: 0,
      }),
    ).toEqual(response('ok'));
  });
});

describe('ReplayExecutor', () => {
  const recorded = [
    step(1, {
      decision: {
        mode: 'act',
        actions: [
          { id: 'a1', name: 'calc', args: { expr: '1+1' } },
          { id: 'a2', name: 'read', args: { path: 'x' } },
        ],
      },
      results: [result('calc', '2'), result('read', 'file x')],
    }),
  ];
  const ctx = (states: Array<[string, string]>) =>
    actContext({ onState: (a, s) => void states.push([a.id, s.status]) });

  it('serves recorded results in action order with the live ids; tool states move pending -> completed', async () => {
    const states: Array<[string, string]> = [];
    const ex = new ReplayExecutor(recorded);
    const out = await ex.run(
      [
        { id: 'n1', name: 'calc', args: { expr: '1+1' } },
        { id: 'n2', name: 'read', args: { path: 'x' } },
      ],
      ctx(states),
    );
    expect(out.map((r) => [r.actionId, r.output])).toEqual([
      ['n1', '2'],
      ['n2', 'file x'],
    ]);
    expect(states).toEqual([
      ['n1', 'pending'],
      ['n1', 'completed'],
      ['n2', 'pending'],
      ['n2', 'completed'],
    ]);
  });

  it(
    'a different tool name, args or call count is drift; allowDrift serves by position and ' +
      'errors where nothing was recorded',
    async () => {
      const ex = new ReplayExecutor(recorded);
      await expect(
        ex.run(
          [
            { id: 'n1', name: 'calc', args: { expr: '2+2' } },
            { id: 'n2', name: 'read', args: { path: 'x' } },
          ],
          ctx([]),
        ),
      ).rejects.toThrow('replay drift at step 1: call 1 (calc) has args {"expr":"2+2"}, recorded {"expr":"1+1"}');
      await expect(ex.run([{ id: 'n1', name: 'calc', args: { expr: '1+1' } }], ctx([]))).rejects.toThrow(
        '1 tool call(s) where the recording has 2',
      );
      const loose = new ReplayExecutor(recorded, { allowDrift: true });
      const out = await loose.run(
        [
          { id: 'n1', name: 'write', args: {} },
          { id: 'n2', name: 'read', args: { path: 'x' } },
          { id: 'n3', name: 'calc', args: {} },
        ],
        ctx([]),
      );
      expect(out.map((r) => r.status)).toEqual(['success', 'success', 'error']);
      expect(out[2].error).toBe('Replay has no recorded result for call calc at step 1');
      expect(loose.drifts[0].message).toBe(
        'replay drift at step 1: 3 tool call(s) where the recording has 2; call 1 is write, recorded calc',
      );
    },
  );
});

describe("replaying calls made besides the steps' own", () => {
  const ask = defineTool({
    id: 'ask',
    description: 'asks the model a side question',
    parameters: z.object({ q: z.string() }),
    async execute({ q }, ctx) {
      const r = await ctx.callModel(
        { messages: [{ role: 'user', content: [{ type: 'text', text: q }] }] },
        { purpose: 'side-question', signal: ctx.signal },
      );
      return responseText(r);
    },
  });
  const agentWith = (model: Model) => new ModelPathAgent({ model, parser: jsonParser(), tools: [ask] });

  it("a replay serves them from the trace's model_call events, so live tools that call the model run again unchanged", async () => {
    const dir = await tempDir();
    const live = new ScriptedModel([
      JSON.stringify({ action: { name: 'ask', args: { q: 'colour?' } } }),
      'blue',
      JSON.stringify({ final_answer: 'it is blue' }),
    ]);
    const recorded = await new Engine({ agent: agentWith(live), trace: { dir } }).run('what colour');
    const t = await readTrace(recorded.traceDir!);
    const replay = new ReplayModel(t.steps, { id: 'scripted:script', events: t.events });
    const again = await new Engine({ agent: agentWith(replay), trace: { dir } }).run('what colour');
    expect(again).toMatchObject({ stopReason: 'final', finalResult: 'it is blue' });
    expect(replay.drifts).toEqual([]);
    expect(again.usage).toEqual(recorded.usage);
    // without the events the side question has nothing recorded to answer it: drift, named
    const blind = new ReplayModel(t.steps, { id: 'scripted:script' });
    const r = await new Engine({ agent: agentWith(blind), trace: false }).run('what colour');
    expect(blind.drifts[0].message).toBe(
      'replay drift: the replay made a "side-question" model call the recorded run did not make',
    );
    expect(r.finalResult).not.toBe('it is blue');
  });

  it('a side call whose request differs from the recorded one is drift naming the parts; allowDrift serves it anyway', async () => {
    const dir = await tempDir();
    const live = new ScriptedModel([
      JSON.stringify({ action: { name: 'ask', args: { q: 'colour?' } } }),
      'blue',
      JSON.stringify({ final_answer: 'it is blue' }),
    ]);
    const recorded = await new Engine({ agent: agentWith(live), trace: { dir } }).run('what colour');
    const t = await readTrace(recorded.traceDir!);
    expect(t.events.find((e) => e.type === 'model_call')!.data).toMatchObject({
      hashes: {
        system: expect.any(String),
        messages: expect.any(String),
        tools: expect.any(String),
        params: expect.any(String),
      },
    });
    // the same run asking its side question in other words
    const reworded = defineTool({
      id: ask.id,
      description: ask.description,
      parameters: ask.parameters,
      execute: (args, ctx) => ask.execute({ q: `${args.q} (briefly)` }, ctx),
    });
    const strict = new ReplayModel(t.steps, { id: 'scripted:script', events: t.events });
    const stopped = await new Engine({
      agent: new ModelPathAgent({ model: strict, parser: jsonParser(), tools: [reworded] }),
      trace: false,
    }).run('what colour');
    expect(strict.drifts[0]).toEqual({
      step: 1,
      parts: ['messages'],
      message: 'replay drift at step 1: the "side-question" model request differs in messages',
    });
    // the drift failed the tool call, so the next step's request differs too, and the replay stops there
    expect(stopped.finalResult).not.toBe('it is blue');
    const lenient = new ReplayModel(t.steps, { id: 'scripted:script', events: t.events, allowDrift: true });
    const served = await new Engine({
      agent: new ModelPathAgent({ model: lenient, parser: jsonParser(), tools: [reworded] }),
      trace: false,
    }).run('what colour');
    expect(served.finalResult).toBe('it is blue');
    expect(lenient.drifts.map((d) => d.parts)).toEqual([['messages']]);
  });
});
