import type { ApprovalReply, Approver, EventRecord } from '../core/index.js';
import {
  ApprovalReply as ApprovalReplySchema,
  ApprovalRequest,
  PermissionRecord,
  canonicalJson,
} from '../core/index.js';
import type { ReplayDrift } from './replay-drift.js';

/**
 * Serves a trace's recorded answers to permission asks, so a replay asks no one: an ask gets the answer the
 * recorded run got at the same step for the same permission key and inputs (the first not yet served), marked
 * `by: "replay"`. An ask the recording has no answer for is refused and listed as drift (the rules or the calls
 * changed). An ask no one could answer in the recorded run (no approver: `decidedBy: "default"`) gets no one
 * again: the approver fails, so the ask is decided by the same default. Used for the doom-loop ask (the engine's
 * own), a workflow interrupt node's value, and every ask of a `--live-tools` replay.
 */
export class ReplayApprovals {
  readonly drifts: ReplayDrift[] = [];
  private readonly recorded: Array<{
    step: number;
    key: string;
    subjects: string;
    reply: ApprovalReply | 'unanswered';
    used: boolean;
  }> = [];

  constructor(events: readonly EventRecord[]) {
    for (const e of events) {
      if (e.type === 'permission') {
        const record = PermissionRecord.safeParse((e.data as { record?: unknown }).record);
        // Settled without an approver (the approval events of an ask that was asked carry its answer).
        if (record.success && record.data.decidedBy === 'default' && record.data.approvalId === undefined)
          this.recorded.push({
            step: e.step,
            key: record.data.key,
            subjects: canonicalJson(record.data.subjects),
            reply: 'unanswered',
            used: false,
          });
        continue;
      }
      if (e.type !== 'approval') continue;
      const data = e.data as { status?: unknown; request?: unknown; reply?: unknown };
      if (data.status !== 'answered') continue;
      const request = ApprovalRequest.safeParse(data.request);
      const reply = ApprovalReplySchema.safeParse(data.reply);
      // A trace is untrusted data: an entry that does not parse is not an answer.
      if (!request.success || !reply.success) continue;
      this.recorded.push({
        step: request.data.step,
        key: request.data.key,
        subjects: canonicalJson(request.data.subjects),
        reply: reply.data,
        used: false,
      });
    }
  }

  /** True when the trace holds any answered ask. */
  get any(): boolean {
    return this.recorded.some((r) => r.reply !== 'unanswered');
  }

  readonly approver: Approver = (request) => {
    const subjects = canonicalJson(request.subjects);
    const hit = this.recorded.find(
      (r) => !r.used && r.step === request.step && r.key === request.key && r.subjects === subjects,
    );
    if (hit) {
      hit.used = true;
      if (hit.reply === 'unanswered') throw new Error('no one could answer this ask in the recorded run');
      // Timeouts and aborts were refusals: served as a rejection with their message. An approval's message is
      // served too: it is an interrupt node's value.
      return hit.reply.decision === 'reject'
        ? { decision: 'reject', by: 'replay', message: hit.reply.message ?? `recorded: ${hit.reply.by ?? 'rejected'}` }
        : { decision: hit.reply.decision, by: 'replay', ...(hit.reply.message ? { message: hit.reply.message } : {}) };
    }
    const message =
      `replay drift at step ${request.step}: the replay asks permission ` +
      `for ${request.key} ${request.subjects.join(' ; ') || '(no input)'}, which the recorded ` +
      `run was not asked`;
    this.drifts.push({ step: request.step, parts: ['permission'], message });
    return { decision: 'reject', by: 'replay', message: 'no recorded answer for this ask' };
  };
}
