import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AgentModule,
  Engine,
  ModelError,
  baseState,
  decide,
  defineTool,
  type ActionResult,
  type Decision,
  type Env,
  type HookEvent,
  type State,
  type Task,
} from '../../src/index.js';
import { ScriptedModel } from '../../src/models/index.js';
import { jsonParser } from '../../src/kit/parsers/index.js';
import { costBudget } from '../../src/kit/policies/index.js';
import { readTrace } from '../../src/trace/index.js';
import { ModelPathAgent, ScriptAgent, addTool, noopTool, tempDir } from '../helpers/kernel-fixtures.js';

const act = (a: number, b: number) => `{"action":{"name":"add","args":{"a":${a},"b":${b}}}}`;

describe('Engine phases', () => {
  it('runs OBSERVE -> DECIDE -> ACT -> REDUCE -> CHECK_STOP in order each step', async () => {
    const phases: string[] = [];
    const hook = (e: HookEvent) => {
      if (e.type === 'phase_start') phases.push(`${e.step}:${e.phase}`);
    };
    const agent = new ScriptAgent([decide.call('noop'), decide.final('done')], { tools: [noopTool] });
    const r = await new Engine({ agent, hooks: [hook], trace: false }).run('t');
    expect(r.stopReason).toBe('final');
    expect(phases).toEqual([
      '1:observe',
      '1:decide',
      '1:act',
      '1:reduce',
      '1:check_stop',
      '2:observe',
      '2:decide',
      '2:reduce',
      '2:check_stop',
    ]);
  });

  it('passes env.observe() to observe, the observation to decide and reduce, results to reduce', async () => {
    const seen: unknown[] = [];
    class A extends AgentModule<State & { sum: number }, { view: unknown }> {
      initState(task: Task) {
        return { ...baseState(task), sum: 0 };
      }
      override observe(_s: State, envView: unknown) {
        return { view: envView };
      }
      override decide(state: State & { sum: number }, obs: { view: unknown }): Decision {
        seen.push(obs.view);
        return state.sum === 0 ? decide.call('add', { a: 2, b: 3 }) : decide.final(String(state.sum));
      }
      override reduce(state: State & { sum: number }, _o: unknown, _d: Decision, results: ActionResult[]) {
        return results.length ? { ...state, sum: Number(results[0].output) } : state;
      }
    }
    let n = 0;
    const env: Env = { name: 'counter', observe: () => ++n, ops: (() => undefined) as Env['ops'] };
    const r = await new Engine<State & { sum: number }>({ agent: new A({ tools: [addTool] }), env, trace: false }).run(
      't',
    );
    expect(seen).toEqual([1, 2]);
    expect(r.finalResult).toBe('5');
    expect(r.state.sum).toBe(5);
  });

  it('model path: system prompt + history + prepare, parser, tool results as observations', async () => {
    const model = new ScriptedModel([act(19, 23), '{"final_answer":"42"}']);
    const agent = new ModelPathAgent({ model, parser: jsonParser(), tools: [addTool] });
    const r = await new Engine({ agent, trace: false }).run('compute 19+23');
    expect(r.stopReason).toBe('final');
    expect(r.finalResult).toBe('42');
    expect(model.requests[0].messages).toEqual([
      { role: 'system', content: 'You are a test agent.' },
      { role: 'user', content: [{ type: 'text', text: 'compute 19+23' }] },
    ]);
    const second = model.requests[1].messages;
    expect(second.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: 'Observation from add: 42' }] });
    // history: user, assistant (with its tool part completed), assistant (final)
    const [, a1] = r.state.messages;
    const tool = a1.parts.find((p) => p.type === 'tool');
    expect(tool).toMatchObject({
      tool: 'add',
      origin: 'parsed',
      state: { status: 'completed', output: '42', input: { a: 19, b: 23 } },
    });
    expect(a1.parts[0].type).toBe('step-start');
    expect(a1.parts.at(-1)?.type).toBe('step-finish');
  });

  it('native tool calls become assistant tool-calls followed by tool results', async () => {
    const native = {
      ...jsonParser(),
      name: 'native-test',
      native: true,
      parse: (res: {
        parts: Array<{ type: string; callId?: string; name?: string; args?: Record<string, unknown>; text?: string }>;
      }) => {
        const calls = res.parts.filter((p) => p.type === 'tool-call');
        if (calls.length)
          return { mode: 'act' as const, actions: calls.map((c) => ({ id: c.callId!, name: c.name!, args: c.args! })) };
        return { mode: 'final' as const, answer: res.parts.map((p) => p.text ?? '').join('') };
      },
    };
    const model = new ScriptedModel([{ toolCalls: [{ name: 'add', args: { a: 1, b: 2 }, id: 'c1' }] }, 'three']);
    const r = await new Engine({
      agent: new ModelPathAgent({ model, parser: native, tools: [addTool] }),
      trace: false,
    }).run('1+2');
    expect(r.finalResult).toBe('three');
    expect(model.requests[0].tools?.map((t) => t.name)).toEqual(['add']);
    expect(model.requests[1].messages.slice(2)).toEqual([
      { role: 'assistant', content: [{ type: 'tool-call', callId: 'c1', name: 'add', args: { a: 1, b: 2 } }] },
      { role: 'tool', content: [{ type: 'tool-result', callId: 'c1', name: 'add', output: '3', isError: false }] },
    ]);
  });

  it('records reasoning parts with start/end times and streams events to hooks', async () => {
    const events: string[] = [];
    const model = new ScriptedModel([{ reasoning: 'think hard', text: '{"final_answer":"x"}' }], { chunkSize: 4 });
    const r = await new Engine({
      agent: new ModelPathAgent({ model, parser: jsonParser() }),
      hooks: [(e) => void (e.type === 'model_event' && events.push(e.event.type))],
      trace: false,
    }).run('t');
    expect(events).toEqual([
      'step-start',
      'reasoning-start',
      'reasoning-delta',
      'reasoning-delta',
      'reasoning-delta',
      'reasoning-end',
      'text-delta',
      'text-delta',
      'text-delta',
      'text-delta',
      'text-delta',
      'step-finish',
    ]);
    const reasoning = r.state.messages[1].parts.find((p) => p.type === 'reasoning');
    expect(reasoning).toMatchObject({
      text: 'think hard',
      time: { start: expect.any(Number), end: expect.any(Number) },
    });
  });

  it('branch decisions are resolved by selectBranch', async () => {
    const agent = new ScriptAgent([{ mode: 'branch', candidates: [decide.final('a'), decide.final('b')] }]);
    const r = await new Engine({ agent, selectBranch: (c) => c[1], trace: false }).run('t');
    expect(r.finalResult).toBe('b');
  });

  it('wait decisions run no action and the loop goes on', async () => {
    const agent = new ScriptAgent([decide.wait(), decide.final('ok')]);
    const r = await new Engine({ agent, trace: false }).run('t');
    expect(r.steps).toBe(2);
    expect(r.finalResult).toBe('ok');
  });

  it("runs a decision's actions in parallel with a limit, results in action order", async () => {
    let running = 0;
    let peak = 0;
    const slow = defineTool({
      id: 'slow',
      description: 'waits',
      parameters: z.object({ ms: z.number(), tag: z.string() }),
      execute: async ({ ms, tag }) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, ms));
        running--;
        return tag;
      },
    });
    const d = decide.act([30, 5, 20, 1].map((ms, i) => ({ name: 'slow', args: { ms, tag: `t${i}` } })));
    const agent = new ScriptAgent([d, decide.final('x')], { tools: [slow] });
    let results: ActionResult[] = [];
    const r = await new Engine({
      agent,
      tools: { parallel: true, concurrency: 2 },
      hooks: [],
      trace: false,
      policies: [{ name: 'spy', reduce: (c) => void (c.results?.length && (results = c.results)) }],
    }).run('t');
    expect(r.stopReason).toBe('final');
    expect(results.map((x) => x.output)).toEqual(['t0', 't1', 't2', 't3']);
    expect(peak).toBe(2);
  });
});

describe('Engine stop reasons', () => {
  it('final', async () => {
    const r = await new Engine({ agent: new ScriptAgent([decide.final('42')]), trace: false }).run('t');
    expect([r.stopReason, r.finalResult, r.steps, r.state.stopReason]).toEqual(['final', '42', 1, 'final']);
  });

  it("agent_condition with the agent's message", async () => {
    class A extends ScriptAgent {
      override shouldStop(s: State) {
        return s.step >= 2 ? 'enough' : false;
      }
    }
    const r = await new Engine({ agent: new A([decide.call('noop')], { tools: [noopTool] }), trace: false }).run('t');
    expect([r.stopReason, r.stopMessage, r.steps]).toEqual(['agent_condition', 'enough', 2]);
  });

  it('env_terminal', async () => {
    let n = 0;
    const env: Env = { name: 'e', observe: () => n++, isTerminal: () => n >= 3, ops: (() => undefined) as Env['ops'] };
    const r = await new Engine({ agent: new ScriptAgent([decide.wait()]), env, trace: false }).run('t');
    expect([r.stopReason, r.steps]).toEqual(['env_terminal', 3]);
  });

  it('budget_steps from state.maxSteps, and a task budget larger than maxSteps does not crash', async () => {
    const agent = new ScriptAgent([decide.wait()], { config: { maxSteps: 4 } });
    const r = await new Engine({ agent, trace: false }).run({ id: 'x', objective: 't', budget: { maxSteps: 1000 } });
    expect([r.stopReason, r.steps]).toEqual(['budget_steps', 4]);
    const r2 = await new Engine({ agent, trace: false }).run({ id: 'x', objective: 't', budget: { maxSteps: 2 } });
    expect([r2.stopReason, r2.steps]).toEqual(['budget_steps', 2]);
  });

  it('budget_tokens and budget_cost from model usage', async () => {
    const model = new ScriptedModel([{ text: '{"wait":true}', usage: { input: 600, output: 10 }, cost: 0.3 }], {
      loop: true,
    });
    const agent = new ModelPathAgent({ model, parser: jsonParser() });
    const t = await new Engine({ agent, trace: false }).run({ id: 'x', objective: 't', budget: { maxTokens: 1000 } });
    expect([t.stopReason, t.steps]).toEqual(['budget_tokens', 2]);
    const c = await new Engine({ agent, trace: false }).run({ id: 'x', objective: 't', budget: { maxCost: 0.5 } });
    expect([c.stopReason, c.steps]).toEqual(['budget_cost', 2]);
    expect(c.usage.cost).toBeCloseTo(0.6);
    // One wording for budget stops, the engine's and the budgets() policy's (budgetVerdict).
    expect(t.stopMessage).toBe('token budget of 1000 reached (1220 used)');
    expect(c.stopMessage).toBe('cost budget of $0.5 reached ($0.6000 spent)');
    const p = await new Engine({ agent, policies: [costBudget(0.5)], trace: false }).run('t');
    expect([p.stopReason, p.stopMessage]).toEqual(['budget_cost', c.stopMessage]);
  });

  it('budget_time cuts a step that hangs', async () => {
    const hang = defineTool({
      id: 'hang',
      description: 'never ends',
      parameters: z.object({}),
      execute: () => new Promise<string>(() => {}),
    });
    const r = await new Engine({ agent: new ScriptAgent([decide.call('hang')], { tools: [hang] }), trace: false }).run({
      id: 'x',
      objective: 't',
      budget: { maxSeconds: 0.2 },
    });
    expect(r.stopReason).toBe('budget_time');
    expect(r.stopMessage).toBe('time budget of 0.2s reached');
  });

  it('task_invalid names the field, and still writes a valid trace', async () => {
    const dir = await tempDir();
    const r = await new Engine({ agent: new ScriptAgent([decide.final('x')]), trace: { dir } }).run({
      id: 'x',
      objective: '',
    });
    expect(r.stopReason).toBe('task_invalid');
    expect(r.stopMessage).toMatch(/objective/);
    const t = await readTrace(r.traceDir!);
    expect(t.manifest.status).toBe('failed');
    expect(t.manifest.summary?.stopReason).toBe('task_invalid');
  });

  it('env_capability_mismatch before step 1, naming tool and group', async () => {
    const sh = defineTool({
      id: 'sh',
      description: 'shell',
      parameters: z.object({}),
      requires: ['process'],
      execute: () => '',
    });
    const r = await new Engine({ agent: new ScriptAgent([decide.final('x')], { tools: [sh] }), trace: false }).run('t');
    expect([r.stopReason, r.steps]).toEqual(['env_capability_mismatch', 0]);
    expect(r.stopMessage).toContain('tool "sh" needs op group "process"');
  });

  it('a policy checkStop ends the run with its reason (critic_stop)', async () => {
    const critic = {
      name: 'critic',
      checkStop: (c: { step: number }) =>
        c.step === 2 ? { reason: 'critic_stop' as const, message: 'critic says stop' } : undefined,
    };
    const r = await new Engine({ agent: new ScriptAgent([decide.wait()]), policies: [critic], trace: false }).run('t');
    expect([r.stopReason, r.stopMessage, r.steps]).toEqual(['critic_stop', 'critic says stop', 2]);
  });

  it('context_overflow from the provider ends the run when no policy handles it', async () => {
    const model = new ScriptedModel([{ error: new ModelError('context_overflow', 'prompt is too long') }]);
    const r = await new Engine({ agent: new ModelPathAgent({ model, parser: jsonParser() }), trace: false }).run('t');
    expect(r.stopReason).toBe('context_overflow');
  });

  it('interrupted when the signal aborts mid-tool; the tool sees the abort and the trace is finalized', async () => {
    const dir = await tempDir();
    let toolSawAbort = false;
    const wait = defineTool({
      id: 'wait',
      description: 'waits for abort',
      parameters: z.object({}),
      execute: (_a, ctx) =>
        new Promise<string>((res) => ctx.signal.addEventListener('abort', () => ((toolSawAbort = true), res('late')))),
    });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const r = await new Engine({
      agent: new ScriptAgent([decide.call('wait')], { tools: [wait] }),
      trace: { dir },
    }).run('t', { signal: ac.signal });
    expect(r.stopReason).toBe('interrupted');
    expect(toolSawAbort).toBe(true);
    const t = await readTrace(r.traceDir!);
    expect(t.manifest.status).toBe('interrupted');
    expect(t.steps).toHaveLength(1);
    expect(t.steps[0].stop?.reason).toBe('interrupted');
  });

  it('interrupted when aborted during a model call', async () => {
    const model = new ScriptedModel([{ text: '{"final_answer":"x"}', delayMs: 5_000 }]);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 30);
    const t0 = Date.now();
    const r = await new Engine({ agent: new ModelPathAgent({ model, parser: jsonParser() }), trace: false }).run('t', {
      signal: ac.signal,
    });
    expect(r.stopReason).toBe('interrupted');
    expect(Date.now() - t0).toBeLessThan(2_000);
  });

  it('an already-aborted signal stops before any work', async () => {
    const ac = new AbortController();
    ac.abort();
    const r = await new Engine({ agent: new ScriptAgent([decide.final('x')]), trace: false }).run('t', {
      signal: ac.signal,
    });
    expect(r.stopReason).toBe('interrupted');
  });
});

describe('beforeModel policies', () => {
  it('a note appended by one policy survives a later policy rewriting the history', async () => {
    const model = new ScriptedModel(['{"wait":true}', '{"final_answer":"x"}']);
    const note = {
      name: 'note',
      beforeModel: (m: import('../../src/index.js').ModelMessage[]) => ({
        messages: [...m, { role: 'user' as const, content: [{ type: 'text' as const, text: 'NOTE' }] }],
      }),
    };
    const rewrite = {
      name: 'rewrite',
      beforeModel: (_m: unknown, ctx: { state: State; step: number }) => {
        if (ctx.step !== 2) return undefined;
        // drop everything but the first message (a stand-in for compaction): a new array, as the contract asks
        return { state: { ...ctx.state, messages: ctx.state.messages.slice(0, 1) } };
      },
    };
    const r = await new Engine({
      agent: new ModelPathAgent({ model, parser: jsonParser() }),
      policies: [note, rewrite],
      trace: false,
    }).run('task');
    expect(r.stopReason).toBe('final');
    const second = model.requests[1].messages;
    expect(second.map((m) => m.role)).toEqual(['system', 'user', 'user']);
    expect(second.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: 'NOTE' }] });
  });
});
