import { describe, expect, it } from 'vitest';
import { Engine, decide } from '../../../src/index.js';
import { ScriptedModel } from '../../../src/models/index.js';
import { budgets, costBudget, stepBudget, timeBudget, tokenBudget } from '../../../src/kit/policies/index.js';
import { jsonParser } from '../../../src/kit/parsers/index.js';
import { readTrace } from '../../../src/trace/index.js';
import { ModelPathAgent, ScriptAgent, noopTool, tempDir } from '../../helpers/kernel-fixtures.js';
import { policyCtx, runOf, stateWith } from '../../helpers/policies-fixtures.js';

const usage = (tokens: number, cost: number | null) => ({
  tokens: { input: tokens, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
  cost,
  modelCalls: 1,
});

describe('budget policies', () => {
  it('each budget stops with its own reason and an event naming limit and use', () => {
    const s = stateWith([]);
    const check = (p: ReturnType<typeof budgets>, over: Parameters<typeof policyCtx>[1]) => {
      const ctx = policyCtx(s, over);
      return { v: runOf(p).checkStop!(ctx), events: ctx.events };
    };
    expect(check(stepBudget(3), { step: 2 }).v).toBeUndefined();
    expect(check(stepBudget(3), { step: 3 })).toEqual({
      v: { reason: 'budget_steps', message: 'step budget of 3 reached' },
      events: [
        {
          type: 'budget:stop',
          data: { policy: 'budget', kind: 'steps', limit: 3, used: 3, step: 3, message: 'step budget of 3 reached' },
        },
      ],
    });
    expect(check(timeBudget(2), { elapsedMs: 1_999 }).v).toBeUndefined();
    expect(check(timeBudget(2), { elapsedMs: 2_500 }).v).toEqual({
      reason: 'budget_time',
      message: 'time budget of 2s reached (2.5s)',
    });
    expect(check(tokenBudget(1_000), { usage: usage(999, 0) }).v).toBeUndefined();
    expect(check(tokenBudget(1_000), { usage: usage(1_000, 0) }).v).toEqual({
      reason: 'budget_tokens',
      message: 'token budget of 1000 reached (1000 used)',
    });
    expect(check(costBudget(0.5), { usage: usage(1, 0.49) }).v).toBeUndefined();
    expect(check(costBudget(0.5), { usage: usage(1, 0.5) }).v).toEqual({
      reason: 'budget_cost',
      message: 'cost budget of $0.5 reached ($0.5000 spent)',
    });
    expect(check(budgets({ maxSteps: 10, maxTokens: 5 }), { step: 1, usage: usage(7, 0) }).v).toMatchObject({
      reason: 'budget_tokens',
    });
  });

  it('an unknown cost cannot be enforced: reported once per run', () => {
    const budget = costBudget(1);
    const p = runOf(budget);
    const ctx = policyCtx(stateWith([]), { usage: usage(1, null) });
    expect(p.checkStop!(ctx)).toBeUndefined();
    expect(p.checkStop!(ctx)).toBeUndefined();
    expect(ctx.events.map((e) => e.type)).toEqual(['budget:cost_unknown']);
    // another run of the same policy object reports it again: nothing carries over
    const other = policyCtx(stateWith([]), { runId: 'run-2', usage: usage(1, null) });
    expect(runOf(budget, 'run-2').checkStop!(other)).toBeUndefined();
    expect(other.events.map((e) => e.type)).toEqual(['budget:cost_unknown']);
  });

  it('rejects bad limits with a message naming the limit', () => {
    expect(() => stepBudget(0)).toThrow(/maxSteps must be a positive integer, got 0/);
    expect(() => stepBudget(1.5)).toThrow(/maxSteps must be a positive integer/);
    expect(() => costBudget(-1)).toThrow(/maxCost must be a positive number/);
    expect(() => timeBudget(Number.NaN)).toThrow(/maxSeconds/);
    expect(() => budgets({})).toThrow(/at least one/);
  });

  it('in an Engine run: a per-task step budget ends the run with budget_steps and is in the trace', async () => {
    const dir = await tempDir();
    const agent = new ScriptAgent([decide.call('noop')], { tools: [noopTool] });
    const r = await new Engine({ agent, policies: [stepBudget(4)], trace: { dir } }).run('go');
    expect(r.stopReason).toBe('budget_steps');
    expect(r.steps).toBe(4);
    const trace = await readTrace(r.traceDir!);
    expect(trace.manifest.summary!.policyEvents).toEqual({ 'budget:stop': 1 });
    expect(trace.manifest.policies).toEqual(['budget(maxSteps=4)']);
  });

  it('in an Engine run: token and cost budgets read the run usage of the model path', async () => {
    const reply = { text: '{"action":{"name":"noop","args":{}}}', usage: { input: 400, output: 100 }, cost: 0.01 };
    const agent = (model: ScriptedModel) =>
      new ModelPathAgent({ model, parser: jsonParser(), tools: [noopTool], config: { maxSteps: 50 } });
    const t = await new Engine({
      agent: agent(new ScriptedModel([reply], { loop: true })),
      policies: [tokenBudget(1_200)],
      trace: false,
    }).run('go');
    expect(t.stopReason).toBe('budget_tokens');
    expect(t.steps).toBe(3);
    const c = await new Engine({
      agent: agent(new ScriptedModel([reply], { loop: true })),
      policies: [costBudget(0.045)],
      trace: false,
    }).run('go');
    expect(c.stopReason).toBe('budget_cost');
    expect(c.steps).toBe(5);
  });
});
