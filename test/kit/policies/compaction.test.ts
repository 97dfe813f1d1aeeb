import { describe, expect, it } from 'vitest';
import {
  Engine,
  ModelError,
  toModelMessages,
  type Message,
  type ModelRequest,
  type State,
} from '../../../src/index.js';
import { COMPACTED_PLACEHOLDER } from '../../../src/core/index.js';
import {
  HistoryEstimator,
  SUMMARY_PROMPT,
  applyPrune,
  compaction,
  contextLimits,
  estimateMessageTokens,
  planPrune,
} from '../../../src/kit/policies/index.js';
import { ScriptedModel } from '../../../src/models/index.js';
import { jsonParser } from '../../../src/kit/parsers/index.js';
import { readTrace } from '../../../src/trace/index.js';
import { ModelPathAgent, noopTool, tempDir } from '../../helpers/kernel-fixtures.js';
import {
  assistantMsg,
  bigTool,
  policyCtx,
  runOf,
  providerReply,
  requestChars,
  stateWith,
  userMsg,
} from '../../helpers/policies-fixtures.js';

const info = (contextWindow?: number, maxOutputTokens?: number) => ({
  provider: 'scripted',
  model: 'm',
  ...(contextWindow ? { contextWindow } : {}),
  ...(maxOutputTokens ? { maxOutputTokens } : {}),
});
const bigCall = (n: number, size = 2000) => JSON.stringify({ action: { name: 'big', args: { n, size } } });
const types = (events: Array<{ type: string }>) => events.map((e) => e.type);

describe('contextLimits', () => {
  it('reserves min(20k, maxOutput) and falls back to 20% of the window (capped) when maxOutput is missing or bogus', () => {
    expect(contextLimits({}, info(128_000, 8_000))).toMatchObject({
      reserve: 8_000,
      usable: 120_000,
      reserveFrom: 'max_output',
    });
    expect(contextLimits({}, info(200_000, 64_000))).toMatchObject({ reserve: 20_000, usable: 180_000 });
    expect(contextLimits({}, info(128_000))).toMatchObject({
      reserve: 20_000,
      usable: 108_000,
      reserveFrom: 'fallback',
    });
    expect(contextLimits({}, info(32_000, 32_000))).toMatchObject({
      reserve: 6_400,
      usable: 25_600,
      reserveFrom: 'fallback',
    });
    expect(contextLimits({ maxOutput: 1_000_000 }, info(8_000))).toMatchObject({ reserve: 1_600, usable: 6_400 });
    expect(contextLimits({ contextWindow: 10_000, reserve: 9_000 })).toMatchObject({ reserve: 5_000, usable: 5_000 });
    expect(contextLimits({ contextWindow: 10_000, reserve: 1_234 })).toMatchObject({
      reserve: 1_234,
      reserveFrom: 'option',
    });
    expect(contextLimits({}, info())).toBeUndefined();
  });
});

describe('HistoryEstimator', () => {
  it('keeps a running total equal to a full re-count, across appends, in-place changes of the last message and rewrites', () => {
    const est = new HistoryEstimator();
    const h: Message[] = [userMsg('task '.repeat(50))];
    const full = (m: Message[]) => m.reduce((n, x) => n + estimateMessageTokens(x), 0);
    for (let i = 0; i < 20; i++) {
      h.push(assistantMsg('t'.repeat(i * 10), [{ tool: 'read', output: 'o'.repeat(i * 37) }]));
      expect(est.total(h)).toBe(full(h));
    }
    // The engine moves the last message's tool parts along in place: the estimate follows.
    const last = h[h.length - 1];
    (last.parts[2] as { state: { output: string } }).state.output = 'z'.repeat(4000);
    expect(est.total(h)).toBe(full(h));
    const rewritten = applyPrune(h, planPrune(h, { protectTokens: 0, protectTurns: 1, keepTools: new Set() }));
    expect(est.total(rewritten)).toBe(full(rewritten));
    expect(est.total(rewritten)).toBeLessThan(full(h));
  });
});

describe('pruning', () => {
  const history = () => [
    userMsg('task'),
    assistantMsg('a1', [{ tool: 'read', output: 'A'.repeat(800) }]),
    assistantMsg('a2', [{ tool: 'skill', output: 'S'.repeat(800) }]),
    assistantMsg('a3', [
      { tool: 'read', output: 'B'.repeat(800) },
      { tool: 'bash', output: 'C'.repeat(800) },
    ]),
    userMsg('second question'),
    assistantMsg('a4', [{ tool: 'read', output: 'D'.repeat(800) }]),
    assistantMsg('a5', [{ tool: 'read', output: 'E'.repeat(800) }]),
  ];

  it('clears old outputs beyond the protected amount, never the last turns or skills, and keeps untouched messages by identity', () => {
    const h = history();
    const before = JSON.stringify(h);
    const plan = planPrune(h, { protectTokens: 250, protectTurns: 2, keepTools: new Set(['skill']) });
    // Walking back: E, D (last 2 turns, protected), C (protected: 3 x 199 > 250? no: D+E = 398 > 250 already) -> C, B, A pruned.
    expect(plan.outputs.map((o) => o.tool).sort()).toEqual(['bash', 'read', 'read']);
    const after = applyPrune(h, plan, 42);
    expect(JSON.stringify(h)).toBe(before);
    expect(after).not.toBe(h);
    expect(after.map((m, i) => m === h[i])).toEqual([true, false, true, false, true, true, true]);
    const model = JSON.stringify(toModelMessages(after));
    expect(model).not.toContain('AAAA');
    expect(model).not.toContain('BBBB');
    expect(model).toContain('SSSS');
    expect(model).toContain('EEEE');
    expect(model.split(COMPACTED_PLACEHOLDER).length - 1).toBe(3);
    const pruned = after[1].parts.find((p) => p.type === 'tool')!;
    // The output is kept for the trace; only time.compacted marks it.
    expect(
      pruned.type === 'tool' &&
        pruned.state.status === 'completed' &&
        pruned.state.output === 'A'.repeat(800) &&
        pruned.state.time.compacted,
    ).toBe(42);
  });

  it('finds outputs older than an already compacted one', () => {
    const h = [
      userMsg('t'),
      assistantMsg('', [{ tool: 'read', output: 'A'.repeat(800) }]),
      assistantMsg('', [{ tool: 'read', output: 'x', compacted: true }]),
      assistantMsg('', [{ tool: 'read', output: 'B'.repeat(800) }]),
      assistantMsg('', [{ tool: 'read', output: 'C'.repeat(800) }]),
    ];
    const plan = planPrune(h, { protectTokens: 0, protectTurns: 2, keepTools: new Set() });
    expect(plan.outputs.map((o) => o.message)).toEqual([1]);
  });
});

describe('compaction policy, called directly', () => {
  const limits = { modelInfo: info(2_000, 400) }; // usable 1,600

  it('under the limit: does nothing', async () => {
    const p = runOf(compaction());
    const ctx = policyCtx(
      stateWith([userMsg('t'), assistantMsg('hi', [{ tool: 'read', output: 'x'.repeat(400) }])]),
      limits,
    );
    expect(await p.reduce!(ctx)).toBeUndefined();
    expect(ctx.events).toEqual([]);
  });

  it('over the limit with old tool outputs: prunes, reports tokens before/after and what was pruned, returns a new state', async () => {
    const h: Message[] = [userMsg('task')];
    for (let i = 0; i < 10; i++)
      h.push(
        assistantMsg(`step ${i}`, [{ tool: i === 1 ? 'skill' : 'read', args: { i }, output: String(i).repeat(800) }]),
      );
    const state = stateWith(h);
    const p = runOf(compaction());
    const ctx = policyCtx(state, limits);
    const next = (await p.reduce!(ctx)) as State;
    expect(next).toBeDefined();
    expect(next).not.toBe(state);
    expect(next.messages).not.toBe(state.messages);
    expect(types(ctx.events)).toEqual(['compaction:prune']);
    const d = ctx.events[0].data as {
      tokensBefore: number;
      tokensAfter: number;
      usable: number;
      pruned: { outputs: number; tools: Record<string, number>; callIds: string[] };
    };
    expect(d.usable).toBe(1_600);
    expect(d.tokensBefore).toBeGreaterThanOrEqual(1_600);
    expect(d.tokensAfter).toBeLessThan(1_600);
    expect(d.pruned.tools).toEqual({ read: 7 });
    expect(d.tokensAfter).toBe(new HistoryEstimator().total(next.messages));
    expect(next.metrics.compactions).toBe(1);
    expect(state.messages.every((m) => JSON.stringify(m).includes('compacted') === false)).toBe(true);
  });

  it('when pruning is not enough: summarises older messages into one summary message, keeping the task and the recent tail', async () => {
    const h: Message[] = [userMsg('the task')];
    for (let i = 0; i < 12; i++) h.push(assistantMsg(`thinking ${i} `.repeat(60), [{ tool: 'noop', output: 'ok' }]));
    // The summariser has a bigger window than the run's model: the transcript is sized to its window.
    const summariser = new ScriptedModel(['Goal: the task. Done: 12 steps of thinking.'], {
      info: { contextWindow: 100_000 },
    });
    const p = runOf(compaction({ model: summariser }));
    const ctx = policyCtx(stateWith(h), limits);
    const next = (await p.reduce!(ctx)) as State;
    expect(types(ctx.events)).toEqual(['compaction:summary']);
    const [first, summary, ...tail] = next.messages;
    expect(first).toBe(h[0]);
    expect(summary.role).toBe('user');
    expect(summary.parts.map((x) => x.type)).toEqual(['compaction', 'text']);
    expect(summary.role === 'user' && summary.info.summary?.body).toBe('Goal: the task. Done: 12 steps of thinking.');
    expect(tail.length).toBeGreaterThan(0);
    expect(tail).toEqual(h.slice(h.length - tail.length));
    expect(tail.every((m, i) => m === h[h.length - tail.length + i])).toBe(true);
    const d = ctx.events[0].data as {
      tokensAfter: number;
      summarised: { messages: number; ids: string[]; omittedFromTranscript: number };
      kept: { ids: string[] };
    };
    expect(d.summarised.omittedFromTranscript).toBe(0);
    expect(d.summarised.messages).toBe(h.length - 1 - tail.length);
    expect(d.summarised.ids).toEqual(h.slice(1, 1 + d.summarised.messages).map((m) => m.info.id));
    expect(d.tokensAfter).toBeLessThan(1_600);
    // The summary call: the documented prompt, a transcript, no tools.
    const req = summariser.requests[0];
    expect(req.messages[0]).toEqual({ role: 'system', content: SUMMARY_PROMPT });
    expect(req.tools).toBeUndefined();
    expect(JSON.stringify(req.messages[1])).toContain('[assistant] thinking 0');
    expect(JSON.stringify(req.messages[1])).toContain('[tool noop({})] -> ok');
  });

  it('uses the provider count of the last call plus the growth since, when the provider reports usage', async () => {
    const h: Message[] = [userMsg('t'), assistantMsg('a', [{ tool: 'read', output: 'A'.repeat(400) }])];
    const state = stateWith(h);
    const p = runOf(compaction({ protectTokens: 0, protectTurns: 1 }));
    const ctx0 = policyCtx(state, limits);
    await p.beforeModel!([{ role: 'system', content: 'sys' }], ctx0);
    // The call reported 1,490 input tokens (system prompt and tool schemas count there; the estimate of this small
    // history is ~120), then tools added ~230 more: 1,720 > usable 1,600.
    h.push(assistantMsg('b', [{ tool: 'read', output: 'B'.repeat(400) }]));
    h.push(assistantMsg('c', [{ tool: 'read', output: 'C'.repeat(400) }]));
    const ctx1 = policyCtx(state, {
      ...limits,
      step: 2,
      usage: { ...ctx0.usage, modelCalls: 1 },
      lastStepTokens: { input: 900, output: 5, reasoning: 0, cache: { read: 590, write: 0 } },
    });
    const next = await p.reduce!(ctx1);
    expect(next).toBeDefined();
    expect(types(ctx1.events)).toEqual(['compaction:prune']);
    const d = ctx1.events[0].data as { basis: string; tokensBefore: number; tokensAfter: number };
    expect(d.basis).toBe('provider');
    expect(d.tokensBefore).toBeGreaterThan(1_600);
    expect(d.tokensAfter).toBeLessThan(1_600);
    // The same history without provider data is far under the limit.
    const fresh = runOf(compaction({ protectTokens: 0, protectTurns: 1 }));
    const ctx2 = policyCtx(stateWith(h), limits);
    expect(await fresh.reduce!(ctx2)).toBeUndefined();
  });

  it('reports once when no context window is known, and leaves the history alone', async () => {
    const p = runOf(compaction());
    const ctx = policyCtx(stateWith([userMsg('x'.repeat(100_000))]), { modelInfo: info() });
    expect(await p.reduce!(ctx)).toBeUndefined();
    expect(await p.reduce!(ctx)).toBeUndefined();
    expect(types(ctx.events)).toEqual(['compaction:disabled']);
  });

  it('rejects bad options', () => {
    expect(() => compaction({ contextWindow: -1 })).toThrow(/contextWindow must be a non-negative number/);
    expect(() => compaction({ headroom: 1 })).toThrow(/headroom must be below 1/);
    expect(() => compaction({ keepSummaryTokens: -5 })).toThrow(/keepSummaryTokens must be a non-negative number/);
    expect(() => compaction({ contextWindow: 1000, reserve: 1000 })).toThrow(
      /reserve \(1000\) must be below contextWindow/,
    );
  });
});

describe('compaction in Engine runs', () => {
  const window = 3_000;

  it(
    'a compaction frees headroom: where pruning alone would leave the context at the limit ' +
      'and compact every step, it summarises too',
    async () => {
      // Each step adds a long thought (never pruned) and a tool output: after a few prunes, pruning frees too little.
      const step = (i: number) =>
        providerReply(window, {
          text: JSON.stringify({
            thought: `step ${i} ` + 't'.repeat(60),
            action: { name: 'big', args: { n: i, size: 2400 } },
          }),
        });
      const script = [
        ...Array.from({ length: 40 }, (_, i) => step(i)),
        providerReply(window, '{"final_answer":"done"}'),
      ];
      const run = async (options: Parameters<typeof compaction>[0]) => {
        const model = new ScriptedModel(script, { info: { contextWindow: window, maxOutputTokens: 500 } });
        const summariser = new ScriptedModel([{ text: 'the run so far' }], { loop: true });
        const agent = new ModelPathAgent({ model, parser: jsonParser(), tools: [bigTool], config: { maxSteps: 60 } });
        const events: string[] = [];
        const r = await new Engine({
          agent,
          policies: [compaction({ model: summariser, ...options })],
          hooks: [(ev) => void (ev.type === 'policy' && events.push(ev.event))],
          trace: false,
        }).run('collect');
        return { r, events, model };
      };
      const tight = await run({ headroom: 0 });
      expect(tight.r.stopReason).toBe('context_overflow');
      expect(tight.r.stopMessage).toMatch(/compactions in a row/);
      const { r, events, model } = await run({});
      expect(r.stopReason).toBe('final');
      expect(events).toContain('compaction:summary');
      expect(events).not.toContain('compaction:failed');
      // the summaries are appended after the first one, which stays in every later request verbatim
      const summaries = model.requests
        .at(-1)!
        .messages.filter((m) => m.role === 'user' && JSON.stringify(m).includes('the run so far'));
      expect(summaries.length).toBe(events.filter((e) => e === 'compaction:summary').length);
    },
  );

  it('a run whose context would overflow goes on: old tool outputs are pruned, the model sees placeholders', async () => {
    const script = [
      ...Array.from({ length: 16 }, (_, i) => providerReply(window, bigCall(i))),
      providerReply(window, '{"final_answer":"done"}'),
    ];
    const plain = new ModelPathAgent({
      model: new ScriptedModel(script, { info: { contextWindow: window, maxOutputTokens: 500 } }),
      parser: jsonParser(),
      tools: [bigTool],
      config: { maxSteps: 30 },
    });
    const without = await new Engine({ agent: plain, trace: false }).run('collect');
    expect(without.stopReason).toBe('context_overflow');

    const dir = await tempDir();
    const model = new ScriptedModel(script, { info: { contextWindow: window, maxOutputTokens: 500 } });
    const agent = new ModelPathAgent({ model, parser: jsonParser(), tools: [bigTool], config: { maxSteps: 30 } });
    const r = await new Engine({ agent, policies: [compaction()], trace: { dir } }).run('collect');
    expect(r.stopReason).toBe('final');
    expect(r.finalResult).toBe('done');
    const last = JSON.stringify(model.requests.at(-1)!.messages);
    expect(last).toContain(COMPACTED_PLACEHOLDER);
    expect(last).toContain(`result 15: `);
    const trace = await readTrace(r.traceDir!);
    const counts = trace.manifest.summary!.policyEvents!;
    expect(counts['compaction:prune']).toBeGreaterThan(0);
    expect(counts['compaction:failed']).toBeUndefined();
    const ev = trace.events.find(
      (e) => e.type === 'policy' && (e.data as { event: string }).event === 'compaction:prune',
    )!;
    expect((ev.data as { data: Record<string, unknown> }).data).toMatchObject({ policy: 'compaction', usable: 2_500 });
    // The stored outputs stay in the state (and trace) for every call.
    const outputs = r.state.messages.flatMap((m) => m.parts).filter((p) => p.type === 'tool');
    expect(outputs).toHaveLength(16);
    expect(
      outputs.every((p) => p.type === 'tool' && p.state.status === 'completed' && p.state.output.length > 2000),
    ).toBe(true);
  });

  it('summarises when pruning cannot help and goes on to the end', async () => {
    const thought = (i: number) =>
      JSON.stringify({ thought: `step ${i}: ` + 'reasoning '.repeat(150), action: { name: 'noop', args: {} } });
    const script = [
      ...Array.from({ length: 12 }, (_, i) => providerReply(window, thought(i))),
      providerReply(window, '{"final_answer":"done"}'),
    ];
    const model = new ScriptedModel(script, { info: { contextWindow: window, maxOutputTokens: 500 } });
    const summariser = new ScriptedModel(['Goal: collect. Done: several noop steps.'], { loop: true });
    const agent = new ModelPathAgent({ model, parser: jsonParser(), tools: [noopTool], config: { maxSteps: 30 } });
    const r = await new Engine({ agent, policies: [compaction({ model: summariser })], trace: false }).run('collect');
    expect(r.stopReason).toBe('final');
    expect(summariser.served).toBeGreaterThan(0);
    expect(r.state.messages[0].parts[0]).toMatchObject({ type: 'text', text: 'collect' });
    expect(r.state.messages.some((m) => m.role === 'user' && m.info.summary)).toBe(true);
    expect(JSON.stringify(model.requests.at(-1)!.messages)).toContain('Goal: collect. Done: several noop steps.');
    expect(r.state.metrics.compactions).toBe(summariser.served);
  });

  it("summary calls count in the run's usage and budgets, whichever model writes them, and the trace records them", async () => {
    const thought = (i: number) =>
      JSON.stringify({ thought: `step ${i}: ` + 'reasoning '.repeat(150), action: { name: 'noop', args: {} } });
    const summary = { text: 'Goal: collect. Done: several noop steps.', usage: { input: 100, output: 50 }, cost: 2 };
    const info = { contextWindow: window, maxOutputTokens: 500 };
    // The run's own model writes the summary (a summary request is the one with an output limit).
    const decide = (i: number, req: ModelRequest) =>
      (providerReply(window, { text: thought(i), cost: 0 }) as (r: ModelRequest) => typeof summary)(req);
    const own = new ScriptedModel(
      Array.from(
        { length: 30 },
        (_, i) => (req: ModelRequest) => (req.maxOutputTokens !== undefined ? summary : decide(i, req)),
      ),
      { info },
    );
    // A separate summary model.
    const summariser = new ScriptedModel([summary], { loop: true });
    const runModel = new ScriptedModel(
      Array.from({ length: 30 }, (_, i) => providerReply(window, { text: thought(i), cost: 0 })),
      { info },
    );
    for (const [model, policy] of [
      [own, compaction()],
      [runModel, compaction({ model: summariser })],
    ] as const) {
      const dir = await tempDir();
      const agent = new ModelPathAgent({ model, parser: jsonParser(), tools: [noopTool], config: { maxSteps: 30 } });
      const r = await new Engine({ agent, policies: [policy], budget: { maxCost: 1 }, trace: { dir } }).run('collect');
      expect(r.stopReason).toBe('budget_cost');
      expect(r.usage.cost).toBe(2);
      const events = (await readTrace(r.traceDir!)).events.filter((e) => e.type === 'model_call');
      expect(events.map((e) => (e.data as { purpose: string }).purpose)).toEqual(['compaction']);
      expect(r.usage.modelCalls).toBe(r.steps + 1);
      expect(r.usage.tokens.output).toBeGreaterThanOrEqual(50);
    }
  });

  it('a compaction that does not bring the context under the limit ends the run with context_overflow after one attempt', async () => {
    const thought = (i: number) =>
      JSON.stringify({ thought: `step ${i}: ` + 'reasoning '.repeat(150), action: { name: 'noop', args: {} } });
    const script = Array.from({ length: 40 }, (_, i) => providerReply(window, thought(i)));
    const model = new ScriptedModel(script, { info: { contextWindow: window, maxOutputTokens: 500 } });
    // A summariser that does not summarise: its "summary" is longer than the window.
    const summariser = new ScriptedModel(['blah '.repeat(4_000)], { loop: true });
    const dir = await tempDir();
    const agent = new ModelPathAgent({ model, parser: jsonParser(), tools: [noopTool], config: { maxSteps: 40 } });
    const r = await new Engine({ agent, policies: [compaction({ model: summariser })], trace: { dir } }).run('collect');
    expect(r.stopReason).toBe('context_overflow');
    expect(r.stopMessage).toMatch(/still over the usable 2500 \(window 3000 - reserve 500\); not compacting again/);
    expect(summariser.served).toBe(1);
    const trace = await readTrace(r.traceDir!);
    expect(trace.manifest.summary!.policyEvents).toEqual({ 'compaction:summary': 1, 'compaction:failed': 1 });
  });

  it('a context nothing can shrink ends context_overflow before any model call', async () => {
    const model = new ScriptedModel(['{"final_answer":"x"}'], {
      info: { contextWindow: window, maxOutputTokens: 500 },
    });
    const agent = new ModelPathAgent({ model, parser: jsonParser(), tools: [noopTool] });
    const r = await new Engine({ agent, policies: [compaction()], trace: false }).run('x'.repeat(20_000));
    expect(r.stopReason).toBe('context_overflow');
    expect(r.stopMessage).toMatch(/nothing can be compacted/);
    expect(model.requests).toHaveLength(0);
  });

  it('a provider context-overflow error triggers one compaction and a retry of the call', async () => {
    const dir = await tempDir();
    const model = new ScriptedModel([
      bigCall(1),
      bigCall(2),
      bigCall(3),
      { error: new ModelError('context_overflow', 'maximum context length exceeded', 400) },
      '{"final_answer":"done"}',
    ]);
    const summariser = new ScriptedModel(['Goal: collect. Got results 1-3.']);
    const agent = new ModelPathAgent({ model, parser: jsonParser(), tools: [bigTool] });
    const r = await new Engine({ agent, policies: [compaction({ model: summariser })], trace: { dir } }).run('collect');
    expect(r.stopReason).toBe('final');
    expect(model.served).toBe(5);
    expect(summariser.served).toBe(1);
    // The retried request is the compacted one.
    const failed = JSON.stringify(model.requests[3].messages);
    const retried = JSON.stringify(model.requests[4].messages);
    expect(retried.length).toBeLessThan(failed.length / 2);
    expect(retried).toContain('Got results 1-3.');
    const trace = await readTrace(r.traceDir!);
    expect(trace.manifest.summary!.policyEvents).toMatchObject({
      'compaction:disabled': 1,
      'compaction:overflow_error': 1,
      'compaction:summary': 1,
    });
  });

  it('a provider overflow error with a window our estimate fits in: the compaction aims at half the estimate', async () => {
    const model = new ScriptedModel(
      [
        bigCall(1),
        bigCall(2),
        bigCall(3),
        bigCall(4),
        { error: new ModelError('context_overflow', 'too long', 400) },
        '{"final_answer":"done"}',
      ],
      { info: { contextWindow: 100_000, maxOutputTokens: 4_000 } },
    );
    const summariser = new ScriptedModel(['Goal: collect. Got results 1-4.']);
    const agent = new ModelPathAgent({ model, parser: jsonParser(), tools: [bigTool] });
    const events: string[] = [];
    const r = await new Engine({
      agent,
      policies: [compaction({ model: summariser })],
      hooks: [(e) => void (e.type === 'policy' && events.push(e.event))],
      trace: false,
    }).run('collect');
    expect(r.stopReason).toBe('final');
    expect(events).toEqual(['compaction:overflow_error', 'compaction:prune', 'compaction:summary']);
    expect(JSON.stringify(model.requests[5].messages).length).toBeLessThan(
      JSON.stringify(model.requests[4].messages).length / 2,
    );
  });

  it('when the provider still counts the compacted context over the limit, the run ends instead of compacting again', async () => {
    // From the 4th call on, the provider counts 2,600 input tokens whatever we send (its tokenizer counts far more
    // than our chars/4 estimate, as for some languages): the compaction at step 4 fits by our count, not by its.
    const reply = (req: ModelRequest, i: number) => ({
      text: bigCall(i, 1_200),
      usage: { input: i < 3 ? Math.ceil(requestChars(req) / 4) : 2_600 },
    });
    const model = new ScriptedModel(
      Array.from({ length: 10 }, () => reply),
      { info: { contextWindow: window, maxOutputTokens: 500 } },
    );
    const summariser = new ScriptedModel(['summary'], { loop: true });
    const agent = new ModelPathAgent({ model, parser: jsonParser(), tools: [bigTool] });
    const r = await new Engine({ agent, policies: [compaction({ model: summariser })], trace: false }).run('collect');
    expect(r.stopReason).toBe('context_overflow');
    expect(r.stopMessage).toMatch(/left 2600 tokens by the provider's count, over the usable 2500/);
    expect(r.state.metrics.compactions).toBe(1);
    expect(r.steps).toBe(5);
  });

  it('a provider that still overflows after the compaction ends the run: one compaction, one retry', async () => {
    const overflow = () => ({ error: new ModelError('context_overflow', 'maximum context length exceeded', 400) });
    const model = new ScriptedModel([bigCall(1), bigCall(2), bigCall(3), overflow, overflow, overflow, overflow]);
    const summariser = new ScriptedModel(['summary'], { loop: true });
    const agent = new ModelPathAgent({ model, parser: jsonParser(), tools: [bigTool] });
    const r = await new Engine({ agent, policies: [compaction({ model: summariser })], trace: false }).run('collect');
    expect(r.stopReason).toBe('context_overflow');
    expect(model.served).toBe(5);
    expect(summariser.served).toBe(1);
  });
});
