import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { decide, defineTool, type State } from '../../../src/index.js';
import { createModel } from '../../../src/models/index.js';
import { doomLoop } from '../../../src/kit/policies/index.js';
import {
  actContext,
  policyContext,
  runSteps,
  ScriptedAgent,
  startFakeOpenAI,
  toolContext,
} from '../../../src/kit/testing/index.js';
import { baseState } from '../../../src/core/index.js';

/** qitos-ts/testing: what a user's unit test of a tool, policy or agent stands on. */
const add = defineTool({
  id: 'add',
  description: 'Adds.',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

describe('qitos-ts/testing', () => {
  it("toolContext calls a tool's execute outside a run; its metadata updates go nowhere, its signal is live", async () => {
    const seen: string[] = [];
    const tool = defineTool({
      id: 'who',
      description: 'Names the call.',
      parameters: z.object({}),
      execute: (_args, ctx) => {
        ctx.metadata({ title: 'naming' });
        seen.push(`${ctx.runId}/${ctx.callId}/${ctx.step}/${ctx.signal.aborted}`);
        return 'ok';
      },
    });
    expect(await tool.execute({}, toolContext())).toBe('ok');
    expect(await tool.execute({}, toolContext({ runId: 'mine', callId: 'c9', step: 4 }))).toBe('ok');
    expect(seen).toEqual(['r/call_1/1/false', 'mine/c9/4/false']);
    await expect(actContext().callModel({ messages: [] })).rejects.toThrow('this test gives the run no model');
  });

  it('policyContext drives a policy directly: a doom loop stops on the repeated call and the emitted events are kept', async () => {
    const r = await runSteps([decide.call('add', { a: 1, b: 1 })], {
      tools: [add],
      policies: [doomLoop({ threshold: 3 })],
      maxSteps: 10,
    });
    expect(r.stopReason).toBe('doom_loop');
    let state: State = baseState({ id: 't', objective: 'x' }, 10);
    const ctx = policyContext(state);
    expect(ctx.runId).toBe('run-1');
    expect(ctx.step).toBe(1);
    ctx.emit('note', { a: 1 });
    expect(ctx.events).toEqual([{ type: 'note', data: { a: 1 } }]);
    await expect(ctx.callModel({ messages: [] })).rejects.toThrow('the policy test gave no model to call');
    state = { ...state, step: 2 };
    expect(policyContext(state, { step: 2 }).step).toBe(2);
  });

  it('runSteps runs the loop on given decisions with real tools; the last decision repeats and maxSteps ends a run', async () => {
    const sums: string[] = [];
    const counted = defineTool({
      id: 'add',
      description: 'Adds.',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => {
        sums.push(String(a + b));
        return String(a + b);
      },
    });
    const r = await runSteps([decide.call('add', { a: 19, b: 23 }), decide.final('42')], { tools: [counted] });
    expect(r).toMatchObject({ stopReason: 'final', finalResult: '42', steps: 2, traceDir: null });
    expect(sums).toEqual(['42']);
    const endless = await runSteps([decide.wait()], { maxSteps: 3 });
    expect(endless.stopReason).toBe('budget_steps');
    expect(() => new ScriptedAgent([])).toThrow('ScriptedAgent needs at least one decision');
  });

  it('startFakeOpenAI speaks the chat-completions protocol to the real SDK and records the requests', async () => {
    const srv = await startFakeOpenAI([{ text: 'hello from the fake' }]);
    try {
      const model = createModel('openai:gpt-4o-mini', { baseURL: srv.url, apiKey: 'k' });
      const r = await model.generate({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }, {});
      expect(r.parts).toEqual([expect.objectContaining({ type: 'text', text: 'hello from the fake' })]);
      expect(srv.requests).toHaveLength(1);
      expect((srv.requests[0]!.body as { model: string }).model).toBe('gpt-4o-mini');
    } finally {
      await srv.close();
    }
  });
});
