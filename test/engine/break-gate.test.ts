import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { BreakCommand, BreakContext, Breakpoint, State } from '../../src/core/index.js';
import { Engine, defineTool, type EngineOptions } from '../../src/index.js';
import { ReActAgent } from '../../src/kit/agents/index.js';
import { evaluateCondition } from '../../src/kit/expr/index.js';
import { nativeParser } from '../../src/kit/parsers/index.js';
import { ScriptedModel, type ScriptReply } from '../../src/models/index.js';
import { readTrace } from '../../src/trace/index.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** A run of three steps: add(1,2), note("x"), then the final answer. `calls` counts what really ran. */
function setup(replies?: ScriptReply[]) {
  const calls: string[] = [];
  const add = defineTool({
    id: 'add',
    description: 'Adds.',
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }) => {
      calls.push(`add ${a} ${b}`);
      return String(a + b);
    },
  });
  const note = defineTool({
    id: 'note',
    description: 'Notes.',
    parameters: z.object({ text: z.string() }),
    execute: ({ text }) => {
      calls.push(`note ${text}`);
      return 'noted';
    },
  });
  const model = new ScriptedModel(
    replies ?? [
      { toolCalls: [{ id: 'c1', name: 'add', args: { a: 1, b: 2 } }] },
      { toolCalls: [{ id: 'c2', name: 'note', args: { text: 'x' } }] },
      { text: 'done' },
    ],
  );
  const agent = new ReActAgent({ model, tools: [add, note], parser: nativeParser({ textMeans: 'final' }) });
  return { agent, model, calls };
}

/** Runs with `breakpoints`; `answer` picks each stop's command; returns the stops seen (step:phase) and the result. */
async function debugRun(
  breakpoints: Breakpoint[],
  answer: (ctx: BreakContext) => BreakCommand | Promise<BreakCommand>,
  extra: Partial<EngineOptions<State>> = {},
  replies?: ScriptReply[],
) {
  const s = setup(replies);
  const stops: string[] = [];
  const dir = await mkdtemp(join(tmpdir(), 'qitos-break-'));
  dirs.push(dir);
  const engine = new Engine({
    agent: s.agent,
    trace: { dir },
    breakpoints,
    onBreak: (ctx) => {
      stops.push(`${ctx.step}:${ctx.phase}`);
      return answer(ctx);
    },
    ...extra,
  });
  const result = await engine.run('add then note');
  return { ...s, stops, result };
}

const go: BreakCommand = { command: 'continue' };

describe('breakpoints: where a run stops', () => {
  it('a phase breakpoint stops before that phase in every step; continue runs on to the next', async () => {
    const { stops, result } = await debugRun([{ on: 'phase', phase: 'observe' }], () => go);
    expect(stops).toEqual(['1:observe', '2:observe', '3:observe']);
    expect(result.finalResult).toBe('done');
  });

  it('a step breakpoint stops once, at its phase (default: the start of the step)', async () => {
    const { stops } = await debugRun(
      [
        { on: 'step', step: 2 },
        { on: 'step', step: 3, phase: 'check_stop' },
      ],
      () => go,
    );
    expect(stops).toEqual(['2:observe', '3:check_stop']);
  });

  it('a tool breakpoint stops at the act edge of the steps that call the tool only', async () => {
    const { stops } = await debugRun([{ on: 'tool', tool: 'note' }], () => go);
    expect(stops).toEqual(['2:act']);
  });

  it('an expr breakpoint is evaluated by breakCondition over the state, once per step by default', async () => {
    const scopes: unknown[] = [];
    const { stops } = await debugRun([{ on: 'expr', expr: 'step >= 2 && state.messages.length >= 2' }], () => go, {
      breakCondition: (expr, scope) => {
        scopes.push(scope.phase);
        return evaluateCondition(expr, scope);
      },
    });
    expect(stops).toEqual(['2:observe', '3:observe']);
    expect(scopes).toEqual(['observe', 'observe', 'observe']);
  });

  it('an expression that fails stops the run and says why, instead of never matching', async () => {
    const reasons: string[] = [];
    await debugRun(
      [{ on: 'expr', expr: 'state.nope.deeper > 1', id: 'bad' }],
      (ctx) => {
        reasons.push(ctx.reason);
        return { command: 'stop' };
      },
      { breakCondition: (expr, scope) => evaluateCondition(expr, scope) },
    );
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(/^breakpoint bad \(expr state\.nope\.deeper > 1\): the expression failed: /);
  });

  it('a once breakpoint is gone after its hit; onBreak may add breakpoints for the rest of the run', async () => {
    const lists: number[] = [];
    const { stops } = await debugRun([{ on: 'phase', phase: 'observe', once: true }], (ctx) => {
      lists.push(ctx.breakpoints.length);
      if (ctx.step === 1) ctx.breakpoints.push({ on: 'tool', tool: 'note' });
      return go;
    });
    expect(stops).toEqual(['1:observe', '2:act']);
    expect(lists).toEqual([0, 1]);
  });

  it('onBreak leaving an invalid breakpoint ends the run with an error naming it', async () => {
    const { result } = await debugRun([{ on: 'step', step: 1 }], (ctx) => {
      ctx.breakpoints.push({ on: 'step', step: 0 } as Breakpoint);
      return go;
    });
    expect(result.stopReason).toBe('unrecoverable_error');
    expect(result.stopMessage).toMatch(/invalid breakpoint at breakpoints\[1\]: step: /);
  });
});

describe('breakpoints: stepping commands', () => {
  it('step stops at the next phase edge, through every phase of a step', async () => {
    const { stops } = await debugRun([{ on: 'step', step: 1 }], (ctx) => (ctx.step === 1 ? { command: 'step' } : go));
    expect(stops).toEqual(['1:observe', '1:decide', '1:act', '1:reduce', '1:check_stop', '2:observe']);
  });

  it('next stops at the start of the next step', async () => {
    const { stops } = await debugRun([{ on: 'step', step: 1, phase: 'decide' }], () => ({ command: 'next' }));
    expect(stops).toEqual(['1:decide', '2:observe', '3:observe']);
  });

  it('until runs to a step, to a phase, or to a phase of a step', async () => {
    const commands: BreakCommand[] = [
      { command: 'until', step: 2, phase: 'reduce' },
      { command: 'until', phase: 'decide' },
      { command: 'until', step: 3 },
      go,
    ];
    const { stops } = await debugRun([{ on: 'step', step: 1 }], () => commands.shift() ?? go);
    // until step 3 given at step 3: the next edge of step 3 or later.
    expect(stops).toEqual(['1:observe', '2:reduce', '3:decide', '3:act']);
  });

  it('a breakpoint still stops a run that is going to an until target', async () => {
    const { stops } = await debugRun(
      [
        { on: 'step', step: 1 },
        { on: 'tool', tool: 'note' },
      ],
      (ctx) => (ctx.step === 1 ? { command: 'until', step: 3 } : go),
    );
    expect(stops).toEqual(['1:observe', '2:act']);
  });
});

describe('breakpoints: what a stop shows', () => {
  it('state, observation, decision, the messages about to go to the model and the results', async () => {
    const seen: Record<string, unknown> = {};
    await debugRun([{ on: 'step', step: 2 }], (ctx) => {
      if (ctx.phase === 'observe') {
        seen.observe = { observation: ctx.observation, decision: ctx.decision, results: ctx.results.length };
        return { command: 'step' };
      }
      if (ctx.phase === 'decide') {
        // The next call starts from the system prompt and the history: step 1's call and its result are in it.
        seen.before = ctx.messages.map((m) => m.role);
        return { command: 'step' };
      }
      if (ctx.phase === 'act') {
        seen.decision = ctx.decision;
        seen.sent = ctx.messages.length;
        return { command: 'step' };
      }
      seen.results = ctx.results.map((r) => [r.name, r.output]);
      seen.stepInState = ctx.state.step;
      return go;
    });
    expect(seen.observe).toEqual({ observation: null, decision: null, results: 0 });
    expect(seen.before).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(seen.decision).toMatchObject({ mode: 'act', actions: [{ id: 'c2', name: 'note', args: { text: 'x' } }] });
    expect(seen.sent).toBe(4);
    expect(seen.results).toEqual([['note', 'noted']]);
    expect(seen.stepInState).toBe(2);
  });
});

describe('breakpoints: changing the run', () => {
  it('edit: the step acts on the edited decision, the trace records both, the model sees the edited call', async () => {
    const { result, calls, model } = await debugRun([{ on: 'tool', tool: 'add' }], (ctx) =>
      ctx.original
        ? go
        : { command: 'edit', decision: { mode: 'act', actions: [{ id: 'e1', name: 'add', args: { a: 10, b: 20 } }] } },
    );
    expect(calls).toEqual(['add 10 20', 'note x']);
    expect(result.finalResult).toBe('done');
    const trace = await readTrace(result.traceDir!);
    const step1 = trace.steps[0];
    expect(step1.decision).toMatchObject({ mode: 'act', actions: [{ id: 'e1', name: 'add', args: { a: 10, b: 20 } }] });
    expect(step1.edited?.original).toMatchObject({ mode: 'act', actions: [{ id: 'c1', args: { a: 1, b: 2 } }] });
    expect(step1.results[0]).toMatchObject({ actionId: 'e1', status: 'success', output: '30' });
    expect(trace.steps[1].edited).toBeUndefined();
    // The second request holds the edited call and its result, not the call the model made.
    const second = JSON.stringify(model.requests[1].messages);
    expect(second).toContain('"e1"');
    expect(second).not.toContain('"c1"');
    expect(second).toContain('30');
  });

  it('edit a tool call into a final answer: the run ends there, with no pending call left in the history', async () => {
    const { result, calls } = await debugRun([{ on: 'step', step: 1, phase: 'act' }], (ctx) =>
      ctx.original ? go : { command: 'edit', decision: { mode: 'final', answer: 'forty-two' } },
    );
    expect(calls).toEqual([]);
    expect(result.finalResult).toBe('forty-two');
    const reply = result.state.messages[1];
    expect(reply.parts.some((p) => p.type === 'tool')).toBe(false);
  });

  it('edit fills in missing action ids, and an invalid edit ends the run naming the field', async () => {
    const ok = await debugRun([{ on: 'tool', tool: 'add' }], (ctx) =>
      ctx.original
        ? go
        : ({ command: 'edit', decision: { mode: 'act', actions: [{ name: 'add', args: { a: 5, b: 5 } }] } } as never),
    );
    expect(ok.calls[0]).toBe('add 5 5');
    const bad = await debugRun([{ on: 'tool', tool: 'add' }], () => ({
      command: 'edit',
      decision: { mode: 'act', actions: [] },
    }));
    expect(bad.result.stopReason).toBe('unrecoverable_error');
    expect(bad.result.stopMessage).toMatch(/onBreak answered .*decision\.actions/);
    expect(bad.calls).toEqual([]);
  });

  it('edit before the act edge is refused with a clear message', async () => {
    const { result } = await debugRun([{ on: 'phase', phase: 'observe' }], () => ({
      command: 'edit',
      decision: { mode: 'final', answer: 'x' },
    }));
    expect(result.stopReason).toBe('unrecoverable_error');
    expect(result.stopMessage).toMatch(/edited at the act edge \(after DECIDE\), not before observe/);
  });

  it('skip: the call does not run, its result is skipped, the model sees it did not run', async () => {
    const { result, calls, model } = await debugRun(
      [{ on: 'tool', tool: 'add' }],
      (ctx) => (ctx.skipped.length ? go : { command: 'skip', call: 'c1' }),
      {},
      [
        {
          toolCalls: [
            { id: 'c1', name: 'add', args: { a: 1, b: 2 } },
            { id: 'c3', name: 'add', args: { a: 3, b: 4 } },
          ],
        },
        { text: 'done' },
      ],
    );
    expect(calls).toEqual(['add 3 4']);
    const trace = await readTrace(result.traceDir!);
    expect(trace.steps[0].results.map((r) => [r.actionId, r.status])).toEqual([
      ['c1', 'skipped'],
      ['c3', 'success'],
    ]);
    expect(JSON.stringify(model.requests[1].messages)).toContain('skipped at a breakpoint');
  });

  it('skip of a call the decision does not have is refused, naming the calls it has', async () => {
    const { result, calls } = await debugRun([{ on: 'tool', tool: 'add' }], () => ({ command: 'skip', call: 3 }));
    expect(result.stopReason).toBe('unrecoverable_error');
    expect(result.stopMessage).toMatch(/skip 3: the decision has calls 0\.\.0 \(c1\)/);
    expect(calls).toEqual([]);
  });

  it('stop ends the run interrupted, with its trace finalized', async () => {
    const { result, calls } = await debugRun([{ on: 'tool', tool: 'note' }], () => ({ command: 'stop' }));
    expect(result.stopReason).toBe('interrupted');
    expect(result.stopMessage).toMatch(/stopped at a breakpoint/);
    expect(calls).toEqual(['add 1 2']);
    const trace = await readTrace(result.traceDir!);
    expect(trace.manifest.status).toBe('interrupted');
    expect(trace.manifest.summary?.stopReason).toBe('interrupted');
  });
});

describe('breakpoints: options', () => {
  it('breakpoints without onBreak, an expr without breakCondition, or a bad breakpoint are refused by the Engine', () => {
    const { agent } = setup();
    expect(() => new Engine({ agent, breakpoints: [{ on: 'phase', phase: 'act' }] })).toThrow(/needs onBreak/);
    expect(() => new Engine({ agent, breakpoints: [{ on: 'expr', expr: 'step > 1' }], onBreak: () => go })).toThrow(
      /needs breakCondition/,
    );
    expect(
      () => new Engine({ agent, breakpoints: [{ on: 'phase', phase: 'recover' } as never], onBreak: () => go }),
    ).toThrow(/EngineOptions\.breakpoints\[0\]: phase: /);
  });

  it('an onBreak that throws ends the run unrecoverable with its message (never an unhandled rejection)', async () => {
    const { result } = await debugRun([{ on: 'step', step: 1 }], () => {
      throw new Error('notebook cell failed');
    });
    expect(result.stopReason).toBe('unrecoverable_error');
    expect(result.stopMessage).toMatch(/notebook cell failed/);
  });
});
