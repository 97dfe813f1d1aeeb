import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../../src/core/index.js';
import { ScriptedModel } from '../../../src/kit/testing/index.js';
import { WorkflowDefinition, forkWorkflow, resumeWorkflow, runWorkflow } from '../../../src/kit/workflow/index.js';
import { branchyWorkflow } from '../../helpers/workflow-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'qitos-wf-resume-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** start -> a -> b -> c -> loop(2){ d } -> end, every work node a call of the counting tool. */
const flow = () =>
  WorkflowDefinition.create({
    name: 'counted',
    nodes: [
      { kind: 'start', id: 's' },
      { kind: 'tool', id: 'a', toolName: 'count', parameters: { node: 'a' } },
      { kind: 'tool', id: 'b', toolName: 'count', parameters: { node: 'b' } },
      { kind: 'tool', id: 'c', toolName: 'count', parameters: { node: 'c' } },
      { kind: 'loop-start', id: 'loop', max: 2 },
      { kind: 'tool', id: 'd', toolName: 'count', parameters: { node: 'd' } },
      { kind: 'loop-end', id: 'back', loop: 'loop' },
      { kind: 'end', id: 'e', result: '{{a}} {{b}} {{c}} {{d}}' },
    ],
    edges: [
      { from: 's', to: 'a' },
      { from: 'a', to: 'b' },
      { from: 'b', to: 'c' },
      { from: 'c', to: 'loop' },
      { from: 'loop', to: 'd' },
      { from: 'd', to: 'back' },
      { from: 'back', to: 'e' },
    ],
  });

/** A counter tool; `killAt` aborts the run the first time that node's call starts (a kill in the middle of it). */
function counter(killAt?: { node: string; controller: AbortController }) {
  const calls: Record<string, number> = {};
  const tool = defineTool({
    id: 'count',
    description: 'Counts calls per node.',
    parameters: z.object({ node: z.string() }),
    execute: ({ node }) => {
      calls[node] = (calls[node] ?? 0) + 1;
      if (killAt && node === killAt.node && calls[node] === 1) {
        killAt.controller.abort();
        return new Promise<string>(() => {}); // never finishes: the abort ends the call
      }
      return `${node}${calls[node]}`;
    },
  });
  return { calls, tool };
}

describe('resumeWorkflow', () => {
  it('resumes after the last completed node: no completed node runs twice', async () => {
    const controller = new AbortController();
    const first = counter({ node: 'c', controller });
    const killed = await runWorkflow(flow(), {
      model: new ScriptedModel([]),
      tools: [first.tool],
      trace: { dir },
      signal: controller.signal,
    });
    expect(killed.run.stopReason).toBe('interrupted');
    expect(killed.run.state.thread.completed.map((c) => c.node)).toEqual(['s', 'a', 'b']);
    const second = counter();
    const resumed = await resumeWorkflow(killed.traceDir!, flow(), {
      model: new ScriptedModel([]),
      tools: [second.tool],
      trace: { dir },
    });
    expect(resumed.status).toBe('completed');
    // a and b completed before the kill and are not run again; c (in flight) runs now, d twice in its loop
    expect(second.calls).toEqual({ c: 1, d: 2 });
    expect(resumed.output).toBe('a1 b1 c1 d2');
    expect(resumed.run.state.thread.completed.map((c) => c.node)).toEqual([
      's',
      'a',
      'b',
      'c',
      'loop',
      'd',
      'back',
      'd',
      'back',
      'e',
    ]);
    const manifest = JSON.parse(readFileSync(join(resumed.traceDir!, 'manifest.json'), 'utf8'));
    expect(manifest.parent).toMatchObject({ runId: killed.run.runId, kind: 'fork', atStep: killed.run.steps });
  });

  it('resumes a crashed run whose last step line was never written, and inside a loop', async () => {
    const first = counter();
    const done = await runWorkflow(flow(), { model: new ScriptedModel([]), tools: [first.tool], trace: { dir } });
    // Cut the trace after the step of the first d (a crash before the rest was written).
    const steps = readFileSync(join(done.traceDir!, 'steps.jsonl'), 'utf8').trim().split('\n');
    const firstD = steps.findIndex((l) => JSON.parse(l).results?.[0]?.output === 'd1');
    writeFileSync(join(done.traceDir!, 'steps.jsonl'), steps.slice(0, firstD + 1).join('\n') + '\n');
    const second = counter();
    const resumed = await resumeWorkflow(done.traceDir!, flow(), {
      model: new ScriptedModel([]),
      tools: [second.tool],
      trace: false,
    });
    expect(resumed.status).toBe('completed');
    expect(second.calls).toEqual({ d: 1 }); // only the loop's second round is left
    expect(resumed.run.state.thread.completed.filter((c) => c.node === 'd')).toHaveLength(2);
  });

  it('refuses a completed run, and another version of the workflow', async () => {
    const { tool } = counter();
    const done = await runWorkflow(flow(), { model: new ScriptedModel([]), tools: [tool], trace: { dir } });
    await expect(
      resumeWorkflow(done.traceDir!, flow(), { model: new ScriptedModel([]), tools: [tool], trace: false }),
    ).rejects.toThrow(/completed; there is nothing to resume/);
    const edited = WorkflowDefinition.create({
      ...flow().toJSON(),
      name: 'counted',
      nodes: flow()
        .toJSON()
        .nodes.map((n) => (n.id === 'loop' ? { ...n, max: 3 } : n)),
    });
    await expect(
      resumeWorkflow(done.traceDir!, edited, { model: new ScriptedModel([]), tools: [tool], trace: false }),
    ).rejects.toThrow(/ran another version of workflow "counted"/);
  });

  it(
    'resumes after a kill in the middle of a branch: the finished branch is reused, the ' +
      'killed one resumed after its last node',
    async () => {
      const branchy = WorkflowDefinition.create(branchyWorkflow());
      const controller = new AbortController();
      const first = counter({ node: 'b2', controller });
      const killed = await runWorkflow(branchy, {
        model: new ScriptedModel([]),
        tools: [first.tool],
        trace: { dir },
        signal: controller.signal,
      });
      expect(killed.run.stopReason).toBe('interrupted');
      expect(first.calls).toEqual({ a: 1, b1: 1, b2: 1 });
      const second = counter();
      const resumed = await resumeWorkflow(killed.traceDir!, branchy, {
        model: new ScriptedModel([]),
        tools: [second.tool],
        trace: { dir },
      });
      expect(resumed.status).toBe('completed');
      expect(second.calls).toEqual({ b2: 1, after: 1 }); // a and b1 are not run again
      expect(resumed.vars.branches).toEqual({ a: { a: 'a1' }, b1: { b1: 'b11', b2: 'b21' } });
      const fan = resumed.run.state.thread.completed.find((c) => c.node === 'fan')!.outputs as {
        branches: Array<{ branch: string; reused?: boolean; traceDir: string }>;
      };
      expect(fan.branches.map((b) => [b.branch, b.reused ?? false])).toEqual([
        ['a', true],
        ['b1', false],
      ]);
      // the resumed branch is a run of its own, linked to the resumed run, that went on from the old branch's state
      const b = fan.branches[1];
      const manifest = JSON.parse(readFileSync(join(b.traceDir, 'manifest.json'), 'utf8'));
      expect(manifest.parent).toMatchObject({ runId: resumed.run.runId, kind: 'subtask' });
      const bSteps = readFileSync(join(b.traceDir, 'steps.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(bSteps.map((x) => x.decision.rationale)).toEqual(['tool node "b2"', 'stop node']);
    },
  );

  it('forkWorkflow re-runs from a node with changed variables: nothing before it runs again', async () => {
    const first = counter();
    const done = await runWorkflow(flow(), {
      model: new ScriptedModel([]),
      tools: [first.tool],
      trace: { dir },
      vars: { tag: 'old' },
    });
    expect(done.output).toBe('a1 b1 c1 d2');
    const second = counter();
    const forked = await forkWorkflow(done.traceDir!, flow(), 'd', {
      model: new ScriptedModel([]),
      tools: [second.tool],
      trace: { dir },
      visit: 2,
      vars: { tag: 'new' },
    });
    expect(second.calls).toEqual({ d: 1 }); // only the loop's second round
    expect(forked.output).toBe('a1 b1 c1 d1');
    expect(forked.vars.tag).toBe('new');
    const manifest = JSON.parse(readFileSync(join(forked.traceDir!, 'manifest.json'), 'utf8'));
    expect(manifest.parent).toMatchObject({ runId: done.run.runId, kind: 'fork' });
    expect(manifest.parent.atStep).toBe(7); // after s, a, b, c, loop, d, back: the second round's d is next
    await expect(
      forkWorkflow(done.traceDir!, flow(), 'd', {
        model: new ScriptedModel([]),
        tools: [second.tool],
        trace: false,
        visit: 3,
      }),
    ).rejects.toThrow(/never ran node "d" 3 times \(it ran it 2\)/);
    await expect(
      forkWorkflow(done.traceDir!, flow(), 'zz', { model: new ScriptedModel([]), tools: [second.tool], trace: false }),
    ).rejects.toThrow('workflow "counted" has no node "zz"');
  });
});
