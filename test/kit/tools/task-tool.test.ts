import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import { readTrace } from '../../../src/trace/index.js';
import { MemoryEnv } from '../../../src/envs/index.js';
import { calculateTool, readTool, taskTool } from '../../../src/kit/tools/index.js';
import { callReply, finalReply, scriptedAgent, toolResultsIn } from '../../helpers/qitos-tools-agent.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'qitos-task-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('task tool', () => {
  it('runs a sub-agent as a child Engine run whose trace links to the parent, and returns its answer', async () => {
    const traces = tempDir();
    const env = new MemoryEnv({ files: { 'data.txt': '6 7\n' } });
    const prompts: string[] = [];
    const task = taskTool({
      createAgent: ({ prompt, depth }) => {
        prompts.push(`${depth}: ${prompt}`);
        const { agent } = scriptedAgent(
          [
            callReply('read', { path: 'data.txt' }),
            callReply('calculate', { expression: '6 * 7' }),
            finalReply('the product is 42'),
          ],
          {
            tools: [readTool(), calculateTool()],
          },
        );
        return { agent, env };
      },
    });
    const { agent: parent, model } = scriptedAgent(
      [
        callReply('task', { description: 'multiply the numbers', prompt: 'Multiply the two numbers in data.txt.' }),
        (req) => ({ text: finalReply(`child says: ${toolResultsIn(req).at(-1)?.output}`) }),
      ],
      { tools: [task] },
    );
    const run = await new Engine({ agent: parent, env, trace: { dir: traces } }).run('Use a sub-agent to multiply.');
    expect(run.stopReason).toBe('final');
    expect(run.finalResult).toBe('child says: the product is 42');
    expect(prompts).toEqual(['1: Multiply the two numbers in data.txt.']);
    expect(model.served).toBe(2);

    const parentTrace = await readTrace(run.traceDir!);
    const result = parentTrace.steps[0].results[0];
    expect(result.status).toBe('success');
    const meta = result.state.status === 'completed' ? result.state.metadata! : {};
    expect(meta.childRunId).toBe(`${run.runId}.${result.actionId}`.replace(/[^A-Za-z0-9_.-]/g, '_'));
    expect(meta.childTraceDir).toBe(path.join(run.traceDir!, 'subtasks', meta.childRunId as string));
    expect(meta.stopReason).toBe('final');

    const child = await readTrace(meta.childTraceDir as string);
    expect(child.manifest.parent).toEqual({ runId: run.runId, path: run.traceDir, kind: 'subtask', depth: 1 });
    expect(child.manifest.status).toBe('completed');
    expect(child.manifest.summary?.finalResult).toBe('the product is 42');
    expect(child.manifest.task.objective).toBe('Multiply the two numbers in data.txt.');
    expect(child.steps.map((s) => s.results.map((r) => `${r.name}:${r.status}`))).toEqual([
      ['read:success'],
      ['calculate:success'],
      [],
    ]);
  });

  it('a sub-agent that ends without an answer is an error result naming why and where its trace is; the parent goes on', async () => {
    const traces = tempDir();
    const task = taskTool({
      createAgent: () => ({
        agent: scriptedAgent([callReply('calculate', { expression: '1+1' })], { tools: [calculateTool()] }).agent,
        budget: { maxSteps: 1 },
      }),
    });
    const { agent } = scriptedAgent(
      [callReply('task', { description: 'doomed', prompt: 'never finishes' }), finalReply('recovered')],
      { tools: [task] },
    );
    const run = await new Engine({ agent, trace: { dir: traces } }).run('go');
    expect(run.stopReason).toBe('final');
    const r = (await readTrace(run.traceDir!)).steps[0].results[0];
    expect(r.status).toBe('error');
    expect(r.error).toMatch(
      /^the sub-agent stopped without an answer after 1 step: budget_steps \(step budget of 1 reached\)\. Its trace: .*subtasks/,
    );
  });

  it("a sub-agent without rules of its own is held to its parent's permission rules and asks its approver", async () => {
    const asked: string[] = [];
    const task = taskTool({
      createAgent: () => ({
        agent: scriptedAgent(
          [
            callReply('calculate', { expression: '6 * 7' }),
            (req) => ({ text: finalReply(`calculate said: ${toolResultsIn(req).at(-1)?.output}`) }),
          ],
          { tools: [calculateTool()] },
        ).agent,
      }),
    });
    const parentAgent = () =>
      scriptedAgent(
        [
          callReply('task', { description: 'multiply', prompt: 'What is 6 * 7?' }),
          (req) => ({ text: finalReply(String(toolResultsIn(req).at(-1)?.output)) }),
        ],
        { tools: [task] },
      ).agent;
    const run = (answer: 'once' | 'reject') =>
      new Engine({
        agent: parentAgent(),
        trace: false,
        permission: { calculate: 'ask' },
        onApproval: (request) => {
          asked.push(`${request.tool} in ${request.runId.includes('.') ? 'the sub-agent' : 'the parent'}`);
          return { decision: answer, ...(answer === 'reject' ? { message: 'no sums' } : {}) };
        },
      }).run('go');
    expect((await run('once')).finalResult).toBe('calculate said: 6 * 7 = 42');
    expect(asked).toEqual(['calculate in the sub-agent']);
    expect((await run('reject')).finalResult).toMatch(/^calculate said: .*no sums/);
  });

  it('refuses to nest deeper than maxDepth', async () => {
    const makeTask = (): ReturnType<typeof taskTool> =>
      taskTool({
        maxDepth: 1,
        createAgent: () => ({
          agent: scriptedAgent(
            [
              callReply('task', { description: 'again', prompt: 'recurse' }),
              (req) => ({ text: finalReply(toolResultsIn(req).at(-1)!.output) }),
            ],
            { tools: [makeTask()] },
          ).agent,
        }),
      });
    const { agent } = scriptedAgent(
      [
        callReply('task', { description: 'level 1', prompt: 'go deeper' }),
        (req) => ({ text: finalReply(toolResultsIn(req).at(-1)!.output) }),
      ],
      { tools: [makeTask()] },
    );
    const run = await new Engine({ agent, trace: false }).run('start');
    expect(run.finalResult).toBe(
      'sub-agents may nest at most 1 deep; this call would be level 2. Do the work here instead.',
    );
  });

  it('without a parent trace, the child is not traced either', async () => {
    const task = taskTool({ createAgent: () => ({ agent: scriptedAgent([finalReply('ok')]).agent }) });
    const { agent } = scriptedAgent(
      [
        callReply('task', { description: 'x', prompt: 'y' }),
        (req) => ({ text: finalReply(toolResultsIn(req).at(-1)!.output) }),
      ],
      { tools: [task] },
    );
    const run = await new Engine({ agent, trace: false }).run('start');
    expect(run.finalResult).toBe('ok');
  });
});

describe('task tool and the env', () => {
  it('the child works in the parent env by default and its end does not close it', async () => {
    const env = new MemoryEnv({ files: { 'n.txt': 'from parent env' } });
    let closed = 0;
    const closing = Object.assign(env, { close: () => void closed++ });
    const task = taskTool({
      createAgent: () => ({
        agent: scriptedAgent(
          [callReply('read', { path: 'n.txt' }), (req) => ({ text: finalReply(toolResultsIn(req).at(-1)!.output) })],
          { tools: [readTool()] },
        ).agent,
      }),
    });
    const { agent } = scriptedAgent(
      [
        callReply('task', { description: 'read it', prompt: 'read n.txt' }),
        (req) => ({ text: finalReply(toolResultsIn(req).at(-1)!.output) }),
      ],
      { tools: [task] },
    );
    const run = await new Engine({ agent, env: closing, trace: false }).run('go');
    expect(run.finalResult).toBe('     1\tfrom parent env');
    expect(closed).toBe(1); // once, by the parent's own end
  });
});

describe('task tool and the parent link', () => {
  const spent = (text: string, tokens: number, cost = 0) => ({ text, usage: { input: tokens, output: 0 }, cost });

  it("the parent's reply gets a subtask part after the call; the child's usage counts in the parent's", async () => {
    const traces = tempDir();
    const task = taskTool({
      createAgent: () => ({ agent: scriptedAgent([spent(finalReply('child done'), 300, 0.3)]).agent }),
    });
    const { agent } = scriptedAgent(
      [
        spent(callReply('task', { description: 'delegate', prompt: 'do it' }), 10, 0.01),
        spent(finalReply('ok'), 20, 0.02),
      ],
      { tools: [task] },
    );
    const run = await new Engine({ agent, trace: { dir: traces } }).run('go');
    expect(run.finalResult).toBe('ok');
    expect(run.usage.tokens.input).toBe(330);
    expect(run.usage.cost).toBeCloseTo(0.33, 10);
    expect(run.usage.modelCalls).toBe(3); // its own two and the child's one, rolled up like tokens and cost
    const reply = run.state.messages[1];
    expect(reply.parts.map((p) => p.type)).toEqual(['step-start', 'text', 'tool', 'subtask', 'step-finish']);
    const child = await readTrace(reply.parts[3].type === 'subtask' ? reply.parts[3].trace! : '');
    expect(reply.parts[3]).toMatchObject({
      type: 'subtask',
      prompt: 'do it',
      description: 'delegate',
      agent: 'ToolsTestAgent',
      model: 'scripted:script',
      runId: child.manifest.runId,
    });
    expect(child.manifest.summary!.usage.tokens.input).toBe(300);
  });

  it('a parent with a cost budget stops once its sub-agent spent it', async () => {
    const task = taskTool({
      createAgent: () => ({ agent: scriptedAgent([spent(finalReply('expensive answer'), 10, 5)]).agent }),
    });
    const { agent } = scriptedAgent(
      [callReply('task', { description: 'spend', prompt: 'spend it' }), finalReply('never reached')],
      { tools: [task] },
    );
    const run = await new Engine({ agent, trace: false, budget: { maxCost: 1 } }).run('go');
    expect(run.stopReason).toBe('budget_cost');
    expect(run.steps).toBe(1);
    expect(run.usage.cost).toBe(5);
  });

  it("the sub-agent gets what is left of the parent's token budget as its share, recorded in its manifest", async () => {
    const traces = tempDir();
    const task = taskTool({
      createAgent: () => ({
        agent: scriptedAgent(
          [
            spent(callReply('calculate', { expression: '1+1' }), 200),
            spent(callReply('calculate', { expression: '2+2' }), 200),
            finalReply('late'),
          ],
          { tools: [calculateTool()] },
        ).agent,
      }),
    });
    const { agent } = scriptedAgent(
      [
        spent(callReply('task', { description: 'share', prompt: 'use your share' }), 700),
        (req) => ({ text: finalReply(toolResultsIn(req).at(-1)!.output) }),
      ],
      { tools: [task] },
    );
    const run = await new Engine({ agent, trace: { dir: traces }, budget: { maxTokens: 1_000 } }).run('go');
    const state = (await readTrace(run.traceDir!)).steps[0].results[0].state;
    // the child stopped without an answer: an error result, which keeps the metadata the call set while running
    expect(state.status).toBe('error');
    const childDir = 'metadata' in state ? (state.metadata!.childTraceDir as string) : '';
    const child = await readTrace(childDir);
    expect(child.manifest.parent).toEqual({
      runId: run.runId,
      path: run.traceDir,
      kind: 'subtask',
      depth: 1,
      budget: { maxTokens: 1_000 - totalTokensOf(run.state.messages[1]) },
    });
    // 200 tokens fit in the share, 400 do not: the child stops after its second step
    expect(child.manifest.summary).toMatchObject({ stopReason: 'budget_tokens', steps: 2 });
    expect(run.stopReason).toBe('budget_tokens');
  });
});

/** Tokens of an assistant message's step (what a step-finish part records). */
function totalTokensOf(message: {
  parts: Array<{ type: string; tokens?: { input: number; output: number; cache: { read: number; write: number } } }>;
}): number {
  const f = message.parts.find((p) => p.type === 'step-finish')!.tokens!;
  return f.input + f.output + f.cache.read + f.cache.write;
}
