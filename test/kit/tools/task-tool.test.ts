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
        const { agent } = scriptedAgent([callReply('read', { path: 'data.txt' }), callReply('calculate', { expression: '6 * 7' }), finalReply('the product is 42')], {
          tools: [readTool(), calculateTool()],
        });
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
    expect(child.steps.map((s) => s.results.map((r) => `${r.name}:${r.status}`))).toEqual([['read:success'], ['calculate:success'], []]);
  });

  it('a sub-agent that ends without an answer is an error result naming why and where its trace is; the parent goes on', async () => {
    const traces = tempDir();
    const task = taskTool({
      createAgent: () => ({ agent: scriptedAgent([callReply('calculate', { expression: '1+1' })], { tools: [calculateTool()] }).agent, budget: { maxSteps: 1 } }),
    });
    const { agent } = scriptedAgent([callReply('task', { description: 'doomed', prompt: 'never finishes' }), finalReply('recovered')], { tools: [task] });
    const run = await new Engine({ agent, trace: { dir: traces } }).run('go');
    expect(run.stopReason).toBe('final');
    const r = (await readTrace(run.traceDir!)).steps[0].results[0];
    expect(r.status).toBe('error');
    expect(r.error).toMatch(/^the sub-agent stopped without an answer after 1 step: budget_steps \(step budget of 1 reached\)\. Its trace: .*subtasks/);
  });

  it('refuses to nest deeper than maxDepth', async () => {
    const makeTask = (): ReturnType<typeof taskTool> =>
      taskTool({
        maxDepth: 1,
        createAgent: () => ({ agent: scriptedAgent([callReply('task', { description: 'again', prompt: 'recurse' }), (req) => ({ text: finalReply(toolResultsIn(req).at(-1)!.output) })], { tools: [makeTask()] }).agent }),
      });
    const { agent } = scriptedAgent([callReply('task', { description: 'level 1', prompt: 'go deeper' }), (req) => ({ text: finalReply(toolResultsIn(req).at(-1)!.output) })], { tools: [makeTask()] });
    const run = await new Engine({ agent, trace: false }).run('start');
    expect(run.finalResult).toBe('sub-agents may nest at most 1 deep; this call would be level 2. Do the work here instead.');
  });

  it('without a parent trace, the child is not traced either', async () => {
    const task = taskTool({ createAgent: () => ({ agent: scriptedAgent([finalReply('ok')]).agent }) });
    const { agent } = scriptedAgent([callReply('task', { description: 'x', prompt: 'y' }), (req) => ({ text: finalReply(toolResultsIn(req).at(-1)!.output) })], { tools: [task] });
    const run = await new Engine({ agent, trace: false }).run('start');
    expect(run.finalResult).toBe('ok');
  });
});

describe('task tool and the env', () => {
  it('the child works in the parent env by default and its end does not close it', async () => {
    const env = new MemoryEnv({ files: { 'n.txt': 'from parent env' } });
    let closed = 0;
    const closing = Object.assign(env, { close: () => void closed++ });
    const task = taskTool({ createAgent: () => ({ agent: scriptedAgent([callReply('read', { path: 'n.txt' }), (req) => ({ text: finalReply(toolResultsIn(req).at(-1)!.output) })], { tools: [readTool()] }).agent }) });
    const { agent } = scriptedAgent([callReply('task', { description: 'read it', prompt: 'read n.txt' }), (req) => ({ text: finalReply(toolResultsIn(req).at(-1)!.output) })], { tools: [task] });
    const run = await new Engine({ agent, env: closing, trace: false }).run('go');
    expect(run.finalResult).toBe('     1\tfrom parent env');
    expect(closed).toBe(1); // once, by the parent's own end
  });
});
