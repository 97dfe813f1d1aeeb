import type { ApprovalReply, Approver, EventRecord } from '../core/index.js';
import { ApprovalReply as ApprovalReplySchema, ApprovalRequest, canonicalJson } from '../core/index.js';
import type { ReplayDrift } from './replay-drift.js';

/**
 * Serves a trace's recorded answers to permission asks, so a replay asks no one: an ask gets the answer the
 * recorded run got at the same step for the same permission key and inputs (the first not yet served), marked
 * `by: "replay"`. An ask the recording has no answer for is refused and listed as drift (the rules or the calls
 * changed). Used for the doom-loop ask (the engine's own) and for every ask of a `--live-tools` replay.
 */
export class ReplayApprovals {
  readonly drifts: ReplayDrift[] = [];
  private readonly recorded: Array<{
    step: number;
    key: string;
    subjects: string;
    reply: ApprovalReply;
    used: boolean;
  }> = [];

  constructor(events: readonly EventRecord[]) {
    for (const e of events) {
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
    return this.recorded.length > 0;
  }

  readonly approver: Approver = (request) => {
    const subjects = canonicalJson(request.subjects);
    const hit = this.recorded.find(
      (r) => !r.used && r.step === request.step && r.key === request.key && r.subjects === subjects,
    );
    if (hit) {
      hit.used = true;
      // Timeouts and aborts were refusals: served as a rejection with their message.
      return hit.reply.decision === 'reject'
        ? { decision: 'reject', by: 'replay', message: hit.reply.message ?? `recorded: ${hit.reply.by ?? 'rejected'}` }
        : { decision: hit.reply.decision, by: 'replay' };
    }
    const message = `replay drift at step ${request.step}: the replay asks permission for ${request.key} ${request.subjects.join(' ; ') || '(no input)'}, which the recorded run was not asked`;
    this.drifts.push({ step: request.step, parts: ['permission'], message });
    return { decision: 'reject', by: 'replay', message: 'no recorded answer for this ask' };
  };
}
