import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../../src/core/index.js';
import { ScriptedModel } from '../../../src/kit/testing/index.js';
import { WorkflowDefinition, runWorkflow, type RunWorkflowOptions } from '../../../src/kit/workflow/index.js';

// An interrupt node asks the run's approver as a permission ask does (#32): pending approval, timeout, abort.
const def = WorkflowDefinition.create({
  nodes: [
    { kind: 'start', id: 's' },
    { kind: 'interrupt', id: 'ask', prompt: 'Colour for {{topic}}?', variable: 'colour' },
    { kind: 'end', id: 'e', result: 'colour={{colour}}' },
  ],
  edges: [
    { from: 's', to: 'ask' },
    { from: 'ask', to: 'e' },
  ],
  vars: { topic: 'the logo' },
});
const run = (o: Partial<RunWorkflowOptions>) => runWorkflow(def, { model: new ScriptedModel([]), trace: false, ...o });

describe('a workflow interrupt node asks the run approver', () => {
  it('the request names the node, its prompt and variable; an approval message is the value', async () => {
    const seen: ApprovalRequest[] = [];
    const r = await run({
      onApproval: (request) => {
        seen.push(request);
        return { decision: 'once', message: 'teal' };
      },
    });
    expect(r.status).toBe('completed');
    expect(r.output).toBe('colour=teal');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      key: 'interrupt',
      subjects: ['colour'],
      title: 'node "ask" asks: Colour for the logo?',
      input: { node: 'ask', variable: 'colour', prompt: 'Colour for the logo?' },
    });
    expect(seen[0].expiresAt - seen[0].createdAt).toBe(300_000);
  });

  it('an approval without a message sets the variable to true (an approval gate)', async () => {
    expect((await run({ onApproval: () => ({ decision: 'always' }) })).output).toBe('colour=true');
  });

  it('a rejection fails the node with its message; no approver keeps the old wait', async () => {
    const r = await run({ onApproval: () => ({ decision: 'reject', message: 'not now' }) });
    expect(r.status).toBe('failed');
    expect(r.reason).toBe('node "ask" (interrupt) failed: the interrupt was refused (rejected): not now');
    const waiting = await run({});
    expect(waiting.status).toBe('waiting');
    expect(waiting.reason).toBe('node "ask" asks: Colour for the logo? (set the variable "colour" and resume)');
  });

  it('an unanswered interrupt times out like an ask, and an abort ends the wait', async () => {
    const timedOut = await run({ onApproval: () => new Promise(() => undefined), approvalTimeoutMs: 50 });
    expect(timedOut.status).toBe('failed');
    expect(timedOut.reason).toContain('the interrupt was refused (no answer in time): no answer within 50 ms');
    const controller = new AbortController();
    let signalled = false;
    const aborted = run({
      signal: controller.signal,
      onApproval: (_request, signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => ((signalled = true), reject(signal.reason)));
          setTimeout(() => controller.abort(), 20);
        }),
    });
    const r = await aborted;
    expect(r.run.stopReason).toBe('interrupted');
    expect(signalled).toBe(true);
  });
});
