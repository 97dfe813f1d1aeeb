import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type ModelRequest } from '../../../src/core/index.js';
import { ScriptedModel } from '../../../src/kit/testing/index.js';
import { WorkflowDefinition, runWorkflow, type WorkflowInput } from '../../../src/kit/workflow/index.js';

const dir = mkdtempSync(join(tmpdir(), 'qitos-wf-fork-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lastText = (req: ModelRequest) => JSON.stringify(req.messages.at(-1));
/** Replies by what is asked, so concurrent branches get their own answers whatever the order. */
const model = () =>
  new ScriptedModel(
    [
      (req) => {
        if (req.messages[0].role === 'system' && req.messages[0].content.includes('summarizing'))
          return { text: 'SUMMARY', usage: { input: 5, output: 2 } };
        if (lastText(req).includes('Which topic')) return { text: 'cats', usage: { input: 7, output: 1 } };
        if (lastText(req).includes('Describe')) return { text: 'furry', usage: { input: 11, output: 1 } };
        return { text: `unexpected: ${lastText(req)}` };
      },
    ],
    { loop: true },
  );

const lookup = defineTool({
  id: 'lookup',
  description: 'Looks up.',
  parameters: z.object({ q: z.string() }),
  execute: ({ q }) => (q === 'cats' ? 'found' : 'missing'),
});
const weather = defineTool({
  id: 'weather',
  description: 'Weather.',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => `sunny in ${city}`,
});

const flow = (
  over: { join?: Record<string, unknown>; fork?: Record<string, unknown>; a?: Record<string, unknown> } = {},
): WorkflowInput => ({
  name: 'research',
  nodes: [
    { kind: 'start', id: 'start' },
    { kind: 'llm', id: 'ask', userPrompt: 'Which topic?' },
    { kind: 'tool', id: 'look', toolName: 'lookup', parameters: { q: '{{ask}}' } },
    { kind: 'condition', id: 'known', expression: 'look == "found"', then: 'fan', else: 'unknown' },
    { kind: 'fork', id: 'fan', ...over.fork },
    { kind: 'tool', id: 'a', toolName: 'weather', parameters: { city: 'Oslo' }, output: 'sky', ...over.a },
    { kind: 'llm', id: 'b', userPrompt: 'Describe {{ask}}', output: 'desc' },
    { kind: 'join', id: 'j', fork: 'fan', output: 'branches', ...over.join },
    { kind: 'context', id: 'sum', processor: 'summarise' },
    { kind: 'end', id: 'done', result: '{{ask}}: {{branches}}' },
    { kind: 'end', id: 'unknown' },
  ],
  edges: [
    { from: 'start', to: 'ask' },
    { from: 'ask', to: 'look' },
    { from: 'look', to: 'known' },
    { from: 'fan', to: 'a' },
    { from: 'fan', to: 'b' },
    { from: 'a', to: 'j' },
    { from: 'b', to: 'j' },
    { from: 'j', to: 'sum' },
    { from: 'sum', to: 'done' },
  ],
});

describe('fork and join', () => {
  it('llm -> tool -> condition -> fork(2) -> join -> summarise: branches run as linked child runs, join merges by branch', async () => {
    const r = await runWorkflow(WorkflowDefinition.create(flow()), {
      model: model(),
      tools: [lookup, weather],
      trace: { dir },
    });
    expect(r.status).toBe('completed');
    expect(r.vars.branches).toEqual({ a: { sky: 'sunny in Oslo' }, b: { desc: 'furry' } });
    expect(r.output).toBe('cats: {"a":{"sky":"sunny in Oslo"},"b":{"desc":"furry"}}');
    const thread = r.run.state.thread;
    expect(thread.completed.map((c) => c.node)).toEqual(['start', 'ask', 'look', 'known', 'fan', 'j', 'sum', 'done']);
    // the summary kept ask's user message and replaced its round (the answer) with the round's summary
    expect(thread.context).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Which topic?' }] },
      { role: 'user', content: [{ type: 'text', text: '[Assistant Execution Summary]\n\nSUMMARY' }] },
    ]);
    expect(thread.completed[6].outputs).toMatchObject({ messages: { before: 2, after: 2 } });
    // each branch is a child run with its own trace, linked to this run; its model usage counts here too
    const fan = thread.completed[4].outputs as { branches: Array<{ branch: string; runId: string; traceDir: string }> };
    for (const b of fan.branches) {
      expect(existsSync(join(b.traceDir, 'manifest.json'))).toBe(true);
      const manifest = JSON.parse(readFileSync(join(b.traceDir, 'manifest.json'), 'utf8'));
      expect(manifest.parent).toMatchObject({ runId: r.run.runId, kind: 'subtask', depth: 1 });
      expect(b.traceDir.startsWith(join(r.traceDir!, 'threads'))).toBe(true);
    }
    expect(r.run.usage.tokens.input).toBe(7 + 11 + 5);
    // ... and so do its model calls: ask, b (in its branch), sum
    expect(r.run.usage.modelCalls).toBe(3);
    expect(thread.forks).toEqual({});
  });

  it('first: the first branch to finish sets its variables; custom: a registered reducer merges', async () => {
    const slow = defineTool({
      id: 'slow',
      description: 'Slow.',
      parameters: z.object({}),
      execute: () => new Promise<string>((res) => setTimeout(() => res('late'), 50)),
    });
    const first = await runWorkflow(
      WorkflowDefinition.create(flow({ join: { merge: 'first' }, a: { toolName: 'slow', parameters: {} } })),
      { model: model(), tools: [lookup, weather, slow], trace: false },
    );
    expect(first.vars.desc).toBe('furry');
    expect(first.vars.sky).toBeUndefined();
    const custom = await runWorkflow(WorkflowDefinition.create(flow({ join: { merge: 'custom', reducer: 'pair' } })), {
      model: model(),
      tools: [lookup, weather],
      trace: false,
      reducers: { pair: (branches) => `${branches.a.vars.sky} / ${branches.b.vars.desc}` },
    });
    expect(custom.vars.branches).toBe('sunny in Oslo / furry');
  });

  it('a failed branch follows the fork error policy: fail, continue, retry', async () => {
    let calls = 0;
    const flaky = defineTool({
      id: 'flaky',
      description: 'Fails once.',
      parameters: z.object({}),
      execute: () => (++calls === 1 ? Promise.reject(new Error('down')) : 'up'),
    });
    const run = (fork: Record<string, unknown>) => {
      calls = 0;
      return runWorkflow(WorkflowDefinition.create(flow({ fork, a: { toolName: 'flaky', parameters: {} } })), {
        model: model(),
        tools: [lookup, weather, flaky],
        trace: false,
      });
    };
    const failed = await run({});
    expect(failed.status).toBe('failed');
    expect(failed.reason).toMatch(
      /^node "fan" \(fork\) failed: fork "fan": branch "a" failed after 1 attempt: node "a" \(tool\) failed: down$/,
    );
    const cont = await run({ onError: { mode: 'continue' } });
    expect(cont.status).toBe('completed');
    expect(cont.vars.branches).toEqual({ b: { desc: 'furry' } });
    const retried = await run({ onError: { mode: 'retry', retries: 1 } });
    expect(retried.status).toBe('completed');
    expect(retried.vars.branches).toEqual({ a: { sky: 'up' }, b: { desc: 'furry' } });
    expect(
      (
        retried.run.state.thread.completed.find((c) => c.node === 'fan')!.outputs as {
          branches: Array<{ branch: string; attempts: number }>;
        }
      ).branches.find((b) => b.branch === 'a')!.attempts,
    ).toBe(2);
  });

  it('budget split: each branch gets an equal part of what is left; shared: each may use all of it', async () => {
    // Each branch is an LLM node that needs four turns of 100 tokens (three tool calls, then its answer).
    const tick = defineTool({ id: 'tick', description: 'Ticks.', parameters: z.object({}), execute: () => 'tick' });
    const turns = () =>
      new ScriptedModel(
        [
          (req) => {
            const done = req.messages.filter((m) => m.role === 'tool').length;
            return done < 3
              ? { toolCalls: [{ name: 'tick', args: {} }], usage: { input: 100, output: 0 } }
              : { text: 'finished', usage: { input: 100, output: 0 } };
          },
        ],
        { loop: true },
      );
    const twoBranches = (budget: 'split' | 'shared') =>
      WorkflowDefinition.create({
        name: 'budgeted',
        nodes: [
          { kind: 'start', id: 'start' },
          { kind: 'fork', id: 'fan', budget },
          { kind: 'llm', id: 'x', userPrompt: 'work x', toolMode: 'auto', availableTools: ['tick'], maxIterations: 10 },
          { kind: 'llm', id: 'y', userPrompt: 'work y', toolMode: 'auto', availableTools: ['tick'], maxIterations: 10 },
          { kind: 'join', id: 'j', fork: 'fan' },
          { kind: 'end', id: 'end' },
        ],
        edges: [
          { from: 'start', to: 'fan' },
          { from: 'fan', to: 'x' },
          { from: 'fan', to: 'y' },
          { from: 'x', to: 'j' },
          { from: 'y', to: 'j' },
          { from: 'j', to: 'end' },
        ],
      });
    const split = await runWorkflow(twoBranches('split'), {
      model: turns(),
      tools: [tick],
      trace: { dir },
      budget: { maxTokens: 500 },
    });
    // 250 each: a branch stops after its third turn (300 > 250), before it can answer, and the fork fails
    expect(split.status).toBe('failed');
    expect(split.reason).toMatch(/branch "x" failed after 1 attempt: budget_tokens/);
    expect(split.run.usage.tokens.input).toBe(600);
    expect(split.run.usage.modelCalls).toBe(6);
    const branchDirs = readdirSync(join(split.traceDir!, 'threads'));
    expect(branchDirs).toHaveLength(2);
    for (const b of branchDirs) {
      const manifest = JSON.parse(readFileSync(join(split.traceDir!, 'threads', b, 'manifest.json'), 'utf8'));
      expect(manifest.parent.budget).toEqual({ maxTokens: 250 });
      expect(manifest.summary.stopReason).toBe('budget_tokens');
    }
    const shared = await runWorkflow(twoBranches('shared'), {
      model: turns(),
      tools: [tick],
      trace: false,
      budget: { maxTokens: 500 },
    });
    // 500 each: both branches answer (400 each), and the run stops over its budget right after the fork
    expect(shared.run.usage.tokens.input).toBe(800);
    expect(shared.run.stopReason).toBe('budget_tokens');
    expect(shared.status).toBe('stopped');
  });

  it('a fork of 50 branches joins every one, traced, without a listener-leak warning', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const n = 50;
      const r = await runWorkflow(
        WorkflowDefinition.create({
          name: 'wide',
          nodes: [
            { kind: 'start', id: 'start' },
            { kind: 'fork', id: 'fan' },
            ...Array.from({ length: n }, (_, i) => ({
              kind: 'tool',
              id: `b${i}`,
              toolName: 'weather',
              parameters: { city: `c${i}` },
              output: 'sky',
            })),
            { kind: 'join', id: 'j', fork: 'fan', output: 'all' },
            { kind: 'end', id: 'end' },
          ],
          edges: [
            { from: 'start', to: 'fan' },
            ...Array.from({ length: n }, (_, i) => [
              { from: 'fan', to: `b${i}` },
              { from: `b${i}`, to: 'j' },
            ]).flat(),
            { from: 'j', to: 'end' },
          ],
        }),
        { tools: [weather], trace: { dir } },
      );
      expect(r.status).toBe('completed');
      const all = r.vars.all as Record<string, { sky: string }>;
      expect(Object.keys(all)).toHaveLength(n);
      expect(all.b7.sky).toBe('sunny in c7');
      expect(readdirSync(join(r.traceDir!, 'threads'))).toHaveLength(n);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
