import { describe, expect, it } from 'vitest';
import type { ApprovalRequest, EventRecord } from '../../src/core/index.js';
import { ReplayApprovals } from '../../src/trace/index.js';

const request = (over: Partial<ApprovalRequest>): ApprovalRequest => ({
  id: 'apr_1',
  runId: 'r',
  step: 2,
  key: 'interrupt',
  subjects: ['colour'],
  rule: null,
  title: 'node "ask" asks: Colour?',
  createdAt: 0,
  expiresAt: 1,
  ...over,
});
const event = (seq: number, step: number, type: string, data: unknown): EventRecord => ({
  seq,
  ts: seq,
  step,
  phase: 'decide',
  type,
  data,
});
const signal = new AbortController().signal;

describe('ReplayApprovals', () => {
  it("serves an approval's message (an interrupt node's value) and a rejection's, each once", async () => {
    const r = new ReplayApprovals([
      event(1, 2, 'approval', {
        status: 'answered',
        request: request({}),
        reply: { decision: 'once', message: 'teal', by: 'tty' },
      }),
      event(2, 3, 'approval', {
        status: 'answered',
        request: request({ step: 3 }),
        reply: { decision: 'reject', message: 'no', by: 'server' },
      }),
    ]);
    expect(await r.approver(request({}), signal)).toEqual({ decision: 'once', by: 'replay', message: 'teal' });
    expect(await r.approver(request({ step: 3 }), signal)).toEqual({ decision: 'reject', by: 'replay', message: 'no' });
    // served once: asked again at step 2, it is drift
    expect(await r.approver(request({}), signal)).toMatchObject({ decision: 'reject' });
    expect(r.drifts.map((d) => d.step)).toEqual([2]);
  });

  it('an ask the recorded run had no one to answer is again answered by no one (the approver fails), not drift', () => {
    const record = {
      key: 'interrupt',
      subjects: ['colour'],
      action: 'ask',
      rule: null,
      outcome: 'deny',
      decidedBy: 'default',
      at: 1,
    };
    const r = new ReplayApprovals([event(1, 2, 'permission', { record })]);
    expect(r.any).toBe(false);
    expect(() => r.approver(request({}), signal)).toThrow('no one could answer this ask in the recorded run');
    expect(r.drifts).toEqual([]);
  });
});
