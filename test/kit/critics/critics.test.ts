import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { z } from 'zod';
import { Engine, defineTool, type Critic, type State } from '../../../src/index.js';
import { ReActAgent, type ReActAgentOptions } from '../../../src/kit/agents/index.js';
import { nativeParser } from '../../../src/kit/parsers/index.js';
import { ScriptedModel } from '../../../src/kit/testing/index.js';
import {
  parseReflection,
  passThroughCritic,
  reactSelfReflectionCritic,
  selfReflectionCritic,
} from '../../../src/kit/critics/index.js';
import { readTrace } from '../../../src/trace/index.js';
import { tempDir } from '../../helpers/kernel-fixtures.js';

/** Fails for a path outside `docs/`, reads one inside. */
const read = defineTool({
  id: 'read',
  description: 'Reads a file.',
  parameters: z.object({ path: z.string() }),
  execute: ({ path }) => {
    if (!path.startsWith('docs/')) throw new Error(`no such file: ${path}`);
    return 'contents';
  },
});

/** A ReAct agent on native tool calls (a scripted text reply is the final answer). */
const agent = (o: ReActAgentOptions) => new ReActAgent({ parser: nativeParser(), ...o });

const texts = (m: ScriptedModel, i: number) =>
  m.requests[i].messages
    .map((x) =>
      typeof x.content === 'string' ? x.content : x.content.map((p) => ('text' in p ? p.text : '')).join(''),
    )
    .join('\n');

describe('critics (the CRITIQUE phase)', () => {
  it('self-reflection sends a failed tool call back with the error; the model sees the feedback and the verdicts are traced', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'read', args: { path: 'README' } }] },
      { toolCalls: [{ name: 'read', args: { path: 'docs/README' } }] },
      'done',
    ]);
    const dir = await tempDir();
    const r = await new Engine({
      agent: agent({ model, tools: [read] }),
      critics: [selfReflectionCritic()],
      trace: { dir },
    }).run('read the readme');
    expect(r.finalResult).toBe('done');
    expect(texts(model, 1)).toContain('Critic self-reflection (retry 1 of 2): These tool calls failed:\n- read: ');
    const steps = (await readTrace(r.traceDir!)).steps;
    expect(steps.map((s) => s.critiques?.[0].verdict.action)).toEqual(['retry', 'continue', 'continue']);
    expect(steps[0].critiques?.[0].verdict.score).toBe(0);
    expect(steps[0].phases.critique).toBeGreaterThanOrEqual(0);
    const events = (await readTrace(r.traceDir!)).events.filter((e) => e.type === 'critic');
    expect(events).toHaveLength(3);
  });

  it('retries are bounded: past maxRetries the verdict is recorded as exhausted and the step stands', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: 'read', args: { path: 'x' } }] }], { loop: true });
    const dir = await tempDir();
    const r = await new Engine({
      agent: agent({ model, tools: [read], maxSteps: 4 }),
      critics: [selfReflectionCritic({ maxRetries: 1 })],
      trace: { dir },
    }).run('x');
    const steps = (await readTrace(r.traceDir!)).steps;
    expect(steps.map((s) => [s.critiques?.[0].verdict.action, s.critiques?.[0].exhausted ?? false])).toEqual([
      ['retry', false],
      ['retry', true],
      ['retry', false],
      ['retry', true],
    ]);
    const feedback = r.state.messages.filter(
      (m) => m.role === 'user' && m.parts.some((p) => p.type === 'text' && p.text.startsWith('Critic ')),
    );
    expect(feedback).toHaveLength(2);
  });

  it(
    'ReAct self-reflection sends a weak final answer back (the run goes on), accepts the ' +
      "next, and its calls count in the run's usage",
    async () => {
      const model = new ScriptedModel(['42', '17 * 23 = 391']);
      const reviewer = new ScriptedModel([
        {
          text: 'Verdict: {"verdict": "retry", "score": 0.1, "feedback": "Show the multiplication."}',
          usage: { input: 50, output: 10 },
        },
        { text: '{"verdict": "continue", "score": 0.9}', usage: { input: 60, output: 5 } },
      ]);
      const r = await new Engine({
        agent: agent({ model }),
        critics: [reactSelfReflectionCritic({ model: reviewer })],
        trace: false,
      }).run('What is 17 * 23?');
      expect(r.stopReason).toBe('final');
      expect(r.finalResult).toBe('17 * 23 = 391');
      expect(texts(model, 1)).toContain('Show the multiplication.');
      expect(r.usage.tokens.input).toBeGreaterThanOrEqual(110);
      expect(reviewer.requests[0].messages[1]).toMatchObject({ role: 'user' });
      expect(texts(reviewer, 0)).toContain("The agent's final answer: 42");
    },
  );

  it('a stop verdict ends the run with critic_stop and the reason; an invalid verdict is an error naming the critic', async () => {
    const stopper: Critic<State> = {
      name: 'budget-guard',
      critique: () => ({ action: 'stop', reason: 'the plan is infeasible', score: 0 }),
    };
    const r = await new Engine({
      agent: agent({
        model: new ScriptedModel([{ toolCalls: [{ name: 'read', args: { path: 'docs/a' } }] }]),
        tools: [read],
      }),
      critics: [passThroughCritic(), stopper],
      trace: false,
    }).run('x');
    expect(r.stopReason).toBe('critic_stop');
    expect(r.stopMessage).toBe('critic budget-guard: the plan is infeasible');
    const broken = { name: 'broken', critique: () => ({ action: 'maybe' }) } as unknown as Critic<State>;
    const b = await new Engine({
      agent: agent({ model: new ScriptedModel(['x']) }),
      critics: [broken],
      trace: false,
    }).run('x');
    expect(b.stopReason).toBe('unrecoverable_error');
    expect(b.stopMessage).toMatch(/critic broken returned an invalid verdict/);
  });

  it('a reviewer reply without a verdict lets the step stand, and says so in the verdict', async () => {
    const reviewer = new ScriptedModel(['Looks fine to me!']);
    const dir = await tempDir();
    const r = await new Engine({
      agent: agent({ model: new ScriptedModel(['7']) }),
      critics: [reactSelfReflectionCritic({ model: reviewer })],
      trace: { dir },
    }).run('x');
    expect(r.finalResult).toBe('7');
    const steps = (await readTrace(r.traceDir!)).steps;
    expect(steps[0].critiques?.[0].verdict).toEqual({
      action: 'continue',
      reason: "the reviewer's reply had no verdict: Looks fine to me!",
    });
  });

  it('property: any verdict written as JSON inside prose parses back to the same verdict', () => {
    const text = fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim() === s && s.length > 0);
    const verdict = fc.oneof(
      fc.record({ verdict: fc.constant('continue'), score: fc.double({ min: 0, max: 1, noNaN: true }) }),
      fc.record({ verdict: fc.constant('retry'), score: fc.double({ min: 0, max: 1, noNaN: true }), feedback: text }),
      fc.record({ verdict: fc.constant('stop'), reason: text }),
    );
    fc.assert(
      fc.property(verdict, fc.constantFrom('', 'My review: ', 'Verdict below.\n'), (v, prefix) => {
        const parsed = parseReflection(`${prefix}${JSON.stringify(v)}`);
        expect(parsed?.action).toBe(v.verdict);
        if ('score' in v) expect(parsed?.score).toBe(v.score);
        if (v.verdict === 'retry') expect(parsed).toMatchObject({ feedback: v.feedback });
        if (v.verdict === 'stop') expect(parsed).toMatchObject({ reason: v.reason });
      }),
    );
  });
});
