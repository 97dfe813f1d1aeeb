import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { z } from 'zod';
import { Engine, defineTool } from '../../../src/index.js';
import { MultiLLMAgent, PlanAndExecuteAgent, parsePlan, type PlanState } from '../../../src/kit/agents/index.js';
import { ScriptedModel } from '../../../src/kit/testing/index.js';
import { readTrace } from '../../../src/trace/index.js';
import { tempDir } from '../../helpers/kernel-fixtures.js';

const PRICES: Record<string, number> = { apple: 0.5, pear: 0.75 };
const price = defineTool({
  id: 'price',
  description: 'The unit price of a fruit.',
  parameters: z.object({ fruit: z.string() }),
  execute: ({ fruit }) => {
    if (!(fruit in PRICES)) throw new Error(`unknown fruit ${fruit}`);
    return String(PRICES[fruit]);
  },
});

const userText = (m: ScriptedModel, i: number) =>
  m.requests[i].messages
    .filter((x) => x.role === 'user')
    .map((x) => (x.content as Array<{ text?: string }>).map((p) => p.text ?? '').join(''))
    .join('\n');

describe('PlanAndExecuteAgent / MultiLLMAgent', () => {
  it(
    'plans with one model, executes step by step with another; the plan is a typed list in ' +
      "the state; each model's tokens are kept apart",
    async () => {
      const planner = new ScriptedModel([
        {
          text: 'Here is the plan:\n1. Find the price of an apple\n2. Find the price of a pear\n3. Add them up',
          usage: { input: 40, output: 20 },
        },
      ]);
      const executor = new ScriptedModel([
        { text: 'Action: price(fruit="apple")', usage: { input: 100, output: 10 } },
        { text: 'Action: plan_step_done(result="0.5")', usage: { input: 110, output: 10 } },
        { text: 'Action: price(fruit="pear")', usage: { input: 120, output: 10 } },
        { text: 'Action: plan_step_done(result="0.75")', usage: { input: 130, output: 10 } },
        { text: 'Action: plan_step_done(result="1.25")', usage: { input: 140, output: 10 } },
        { text: 'Final Answer: 1.25', usage: { input: 150, output: 10 } },
      ]);
      const dir = await tempDir();
      const agent = new MultiLLMAgent({ planner, executor, tools: [price] });
      const r = await new Engine<PlanState>({ agent, trace: { dir } }).run(
        'What do an apple and a pear cost together?',
      );
      expect(r.finalResult).toBe('1.25');
      expect(r.state.plan).toEqual([
        { text: 'Find the price of an apple', status: 'done', result: '0.5' },
        { text: 'Find the price of a pear', status: 'done', result: '0.75' },
        { text: 'Add them up', status: 'done', result: '1.25' },
      ]);
      expect(r.state.metrics).toMatchObject({ plannerCalls: 1, plannerTokens: 60, executorTokens: 810 });
      expect(r.usage.tokens.input + r.usage.tokens.output).toBe(870);
      // each plan step is announced once, when the executor starts on it
      expect(userText(executor, 0)).toContain('Work on step 1: Find the price of an apple');
      expect(userText(executor, 2)).toContain('Work on step 2: Find the price of a pear');
      expect(userText(executor, 5).match(/Work on step/g)).toHaveLength(3);
      const calls = (await readTrace(r.traceDir!)).events.filter((e) => e.type === 'model_call');
      expect(calls.map((e) => [(e.data as { purpose: string }).purpose, (e.data as { model: string }).model])).toEqual([
        ['plan', planner.id],
      ]);
    },
  );

  it('a failed step re-plans what remains, telling the planner what failed', async () => {
    const planner = new ScriptedModel(['1. Price a kiwi\n2. Report it', '1. Price an apple instead\n2. Report it']);
    const executor = new ScriptedModel([
      'Action: price(fruit="kiwi")',
      'Action: plan_step_done(result="no kiwi price", success=false)',
      'Action: price(fruit="apple")',
      'Action: plan_step_done(result="0.5")',
      'Final Answer: 0.5',
    ]);
    const r = await new Engine<PlanState>({
      agent: new MultiLLMAgent({ planner, executor, tools: [price] }),
      trace: false,
    }).run('Price a fruit');
    expect(r.finalResult).toBe('0.5');
    expect(r.state.replans).toBe(1);
    expect(r.state.plan.map((p) => `${p.status}:${p.text}`)).toEqual([
      'failed:Price a kiwi',
      'done:Price an apple instead',
      'pending:Report it',
    ]);
    expect(userText(planner, 1)).toContain('Failed:\n- Price a kiwi: no kiwi price');
  });

  it('a planner reply without numbered steps is an error the run records', async () => {
    const model = new ScriptedModel(['I would rather not plan.'], { loop: true });
    const r = await new Engine<PlanState>({
      agent: new PlanAndExecuteAgent({ model }),
      maxRecoveries: 0,
      trace: false,
    }).run('x');
    expect(r.stopReason).toBe('unrecoverable_error');
    expect(r.stopMessage).toMatch(/the planner's reply has no numbered steps: I would rather not plan\./);
  });

  it('property: parsePlan keeps the numbered and bulleted lines, in order, up to max', () => {
    const item = fc
      .string({ minLength: 1, maxLength: 20 })
      .filter((s) => s.trim() === s && s.length > 0 && !s.includes('\n'));
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 10 }), fc.integer({ min: 1, max: 12 }), (items, max) => {
        const text = ['Plan:', ...items.map((t, i) => (i % 2 ? `- ${t}` : `${i + 1}. ${t}`)), 'Good luck.'].join('\n');
        expect(parsePlan(text, max).map((p) => p.text)).toEqual(items.slice(0, max));
      }),
    );
  });
});
