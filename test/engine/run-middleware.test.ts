import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Engine,
  ModelError,
  decide,
  defineTool,
  wrapModel,
  type HookEvent,
  type Model,
  type ModelMiddleware,
  type RetryPart,
} from '../../src/index.js';
import { newModelCall, composeModelCall } from '../../src/core/index.js';
import { ScriptedModel, retryMiddleware } from '../../src/models/index.js';
import { jsonParser } from '../../src/kit/parsers/index.js';
import { readTrace } from '../../src/trace/index.js';
import { ModelPathAgent, ScriptAgent, noopTool, tempDir } from '../helpers/kernel-fixtures.js';

const final = (answer: string) => JSON.stringify({ final_answer: answer });
const call = (name: string, args: Record<string, unknown> = {}) => JSON.stringify({ action: { name, args } });

/** A middleware that records the purpose of each call it sees, under a label. */
function recorder(label: string, seen: string[]): ModelMiddleware {
  return async (c, next) => {
    seen.push(`${label}>${c.purpose}`);
    const r = await next(c);
    seen.push(`${label}<`);
    return r;
  };
}

describe('composeModelCall and wrapModel', () => {
  it('runs middleware outermost first and lets one pass a changed request on; the log shows what the model received', async () => {
    const model = new ScriptedModel(['ok']);
    const seen: string[] = [];
    const rewrite: ModelMiddleware = (c, next) => next({ ...c, request: { ...c.request, temperature: 0.25 } });
    const chain = composeModelCall([recorder('a', seen), rewrite, recorder('b', seen)], model);
    const c = newModelCall('direct', model, { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
    const r = await chain(c);
    expect(r.parts).toEqual([{ type: 'text', text: 'ok' }]);
    expect(seen).toEqual(['a>direct', 'b>direct', 'b<', 'a<']);
    expect(model.requests[0].temperature).toBe(0.25);
    expect(c.log).toMatchObject({ attempts: 1, request: { temperature: 0.25 } });
  });

  it('wrapModel gives a plain Model that runs its middleware when called directly, nested wraps in order', async () => {
    const seen: string[] = [];
    const inner = wrapModel(new ScriptedModel(['x']), [recorder('inner', seen)]);
    const outer = wrapModel(inner, [recorder('outer', seen)]);
    expect(outer.id).toBe('scripted:script');
    await outer.generate({ messages: [] });
    expect(seen).toEqual(['outer>direct', 'inner>direct', 'inner<', 'outer<']);
  });
});

describe('the run model chain', () => {
  it("composes the engine's accounting, the user's middleware and the model's own layers once per run, for every call", async () => {
    const seen: string[] = [];
    const model = wrapModel(new ScriptedModel([call('noop'), final('done')]), [recorder('model', seen)]);
    const agent = new ModelPathAgent({ model, parser: jsonParser(), tools: [noopTool] });
    const r = await new Engine({ agent, middleware: [recorder('user', seen)], trace: false }).run('go');
    expect(r.finalResult).toBe('done');
    expect(seen).toEqual([
      'user>decide',
      'model>decide',
      'model<',
      'user<',
      'user>decide',
      'model>decide',
      'model<',
      'user<',
    ]);
    expect(r.usage.modelCalls).toBe(2);
  });

  it('a middleware that rewrites the request is what the trace records (hashes of what was sent)', async () => {
    const dir = await tempDir();
    const model = new ScriptedModel([final('a'), final('a'), final('a')]);
    const agent = () => new ModelPathAgent({ model, parser: jsonParser() });
    const plain = await new Engine({ agent: agent(), trace: { dir } }).run('x');
    const hot: ModelMiddleware = (c, next) => next({ ...c, request: { ...c.request, temperature: 1.5 } });
    const rewritten = await new Engine({ agent: agent(), middleware: [hot], trace: { dir } }).run('x');
    const passing: ModelMiddleware = (c, next) => next({ ...c, request: { ...c.request } });
    const passed = await new Engine({ agent: agent(), middleware: [passing], trace: { dir } }).run('x');
    const [a, b, c] = await Promise.all(
      [plain, rewritten, passed].map(async (r) => (await readTrace(r.traceDir!)).steps[0].model!),
    );
    expect(model.requests[1].temperature).toBe(1.5);
    expect(b.hashes.params).not.toBe(a.hashes.params);
    expect(b.hashes.messages).toBe(a.hashes.messages);
    // a middleware that passes the same request on changes nothing the trace says
    expect(c.hashes).toEqual(a.hashes);
  });

  it('a retry is visible: a retry part in the reply, a retry event in the hooks and the trace, one model call in the usage', async () => {
    const dir = await tempDir();
    const flaky = new ScriptedModel([
      { error: new ModelError('server', 'busy, try later', 503) },
      { text: final('after retry'), usage: { input: 7, output: 3 } },
    ]);
    const model = wrapModel(flaky, [retryMiddleware({ retry: { baseDelayMs: 1, random: () => 0 } })]);
    const events: HookEvent[] = [];
    const r = await new Engine({
      agent: new ModelPathAgent({ model, parser: jsonParser() }),
      hooks: [(e) => void events.push(e)],
      trace: { dir },
    }).run('x');
    expect(r.finalResult).toBe('after retry');
    expect(r.usage).toMatchObject({ modelCalls: 1, tokens: { input: 7, output: 3 } });
    const reply = r.state.messages[1];
    const retry = reply.parts[0] as RetryPart;
    expect(reply.parts.map((p) => p.type)).toEqual(['retry', 'step-start', 'text', 'step-finish']);
    expect(retry).toMatchObject({
      type: 'retry',
      attempt: 1,
      errorKind: 'server',
      error: 'busy, try later',
      delayMs: 1,
    });
    const streamed = events.flatMap((e) => (e.type === 'model_event' ? [e.event.type] : []));
    expect(streamed[0]).toBe('retry');
    const traced = (await readTrace(r.traceDir!)).events.filter((e) => e.type === 'retry');
    expect(traced).toMatchObject([{ step: 1, data: { attempt: 1, errorKind: 'server' } }]);
  });

  it(
    'tools call the model through the run: counted in usage, a model_call event with the ' +
      "response, stopped by the run's budget",
    async () => {
      const dir = await tempDir();
      const ask = defineTool({
        id: 'ask',
        description: 'asks the model',
        parameters: z.object({ q: z.string() }),
        async execute({ q }, ctx) {
          const r = await ctx.callModel(
            { messages: [{ role: 'user', content: [{ type: 'text', text: q }] }] },
            { purpose: 'mcp-sampling', signal: ctx.signal },
          );
          return r.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
        },
      });
      const model = new ScriptedModel([
        call('ask', { q: 'what is 2+2?' }),
        { text: '4', usage: { input: 100, output: 900 } },
        final('4'),
      ]);
      const agent = new ModelPathAgent({ model, parser: jsonParser(), tools: [ask] });
      const r = await new Engine({ agent, trace: { dir }, budget: { maxTokens: 1_000 } }).run('x');
      // the sampling call's 1,000 tokens end the run at the step it was made in
      expect(r.stopReason).toBe('budget_tokens');
      expect(r.usage.modelCalls).toBe(2);
      expect(r.state.messages.at(-1)!.parts.find((p) => p.type === 'tool')).toMatchObject({
        state: { status: 'completed', output: '4' },
      });
      const t = await readTrace(r.traceDir!);
      const ev = t.events.find((e) => e.type === 'model_call')!;
      expect(ev).toMatchObject({
        step: 1,
        data: {
          purpose: 'mcp-sampling',
          model: 'scripted:script',
          attempts: 1,
          response: { parts: [{ type: 'text', text: '4' }], usage: { input: 100, output: 900 } },
        },
      });
      expect(r.usage.tokens.input).toBe(100);
      expect(r.usage.tokens.output).toBeGreaterThan(900);
      expect(t.manifest.summary!.usage).toEqual(r.usage);
    },
  );

  it('a run without a model: callModel is an error result naming why', async () => {
    const dir = await tempDir();
    const probe = defineTool({
      id: 'probe',
      description: 'x',
      parameters: z.object({}),
      execute: async (_a, ctx) => ctx.callModel({ messages: [] }).then(() => 'called'),
    });
    const r = await new Engine({
      agent: new ScriptAgent([decide.call('probe'), decide.final('x')], { tools: [probe] }),
      trace: { dir },
    }).run('x');
    expect(r.finalResult).toBe('x');
    expect((await readTrace(r.traceDir!)).steps[0].results[0]).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/^run .* has no model to call/),
    });
  });

  it('the model the engine is given is not called around its layers: a user middleware sees the call before a model retry', async () => {
    const order: string[] = [];
    const failing: Model = {
      id: 'test:fail',
      generate: async () => {
        order.push('attempt');
        throw new ModelError('transport', 'reset');
      },
    };
    const model = wrapModel(failing, [retryMiddleware({ retry: { maxRetries: 1, baseDelayMs: 1 } })]);
    const user: ModelMiddleware = async (c, next) => {
      order.push('user');
      return next(c);
    };
    const r = await new Engine({
      agent: new ModelPathAgent({ model, parser: jsonParser() }),
      middleware: [user],
      maxRecoveries: 0,
      trace: false,
    }).run('x');
    expect(r.stopReason).toBe('unrecoverable_error');
    expect(order).toEqual(['user', 'attempt', 'attempt']);
  });
});

describe('usage by purpose', () => {
  it('side calls (callModel) are counted in the run usage and, apart, by purpose in the result and the manifest', async () => {
    const dir = await tempDir();
    {
      const side = new ScriptedModel([
        { text: 'a', usage: { input: 7, output: 1 }, cost: 0.5 },
        { text: 'b', usage: { input: 3, output: 2 }, cost: 0.25 },
      ]);
      const ask = defineTool({
        id: 'ask',
        description: 'asks another model',
        parameters: z.object({}),
        async execute(_args, ctx) {
          await ctx.callModel(
            { messages: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }] },
            { purpose: 'user', model: side },
          );
          await ctx.callModel(
            { messages: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }] },
            { purpose: 'user', model: side },
          );
          return 'ok';
        },
      });
      const agent = new ScriptAgent([decide.call('ask'), decide.final('done')], { tools: [ask] });
      const r = await new Engine({
        agent,
        model: new ScriptedModel([], { id: 'scripted:unused' }),
        trace: { dir },
      }).run('t');
      expect(r.usageByPurpose).toEqual({
        user: {
          tokens: { input: 10, output: 3, reasoning: 0, cache: { read: 0, write: 0 } },
          cost: 0.75,
          modelCalls: 2,
        },
      });
      expect(r.usage.modelCalls).toBe(2);
      const trace = await readTrace(r.traceDir!);
      expect(trace.manifest.summary?.usageByPurpose).toEqual(r.usageByPurpose);
    }
  });
});
