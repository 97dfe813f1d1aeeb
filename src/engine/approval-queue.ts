import type { ApprovalReply, ApprovalRequest, Approver } from '../core/index.js';

/**
 * Asks that wait for an answer from elsewhere (a server's HTTP route, a UI, a test): `approver` is the run's
 * `onApproval`; each ask stays listed in `pending()` until `answer(id, reply)` settles it, or the run's gate gives
 * up on it (timeout, abort, the run's end), which removes it. Nothing is left waiting once a run has ended.
 */
export class ApprovalQueue {
  private readonly waiting = new Map<string, { request: ApprovalRequest; settle: (reply: ApprovalReply) => void }>();
  private readonly listeners = new Set<(request: ApprovalRequest) => void>();

  /** The approver to give an engine (`onApproval`); `by` names who answers, for the record. */
  readonly approver: Approver = (request, signal) =>
    new Promise<ApprovalReply>((resolve, reject) => {
      const drop = () => {
        this.waiting.delete(request.id);
        reject(signal.reason instanceof Error ? signal.reason : new Error('the ask ended'));
      };
      if (signal.aborted) return drop();
      signal.addEventListener('abort', drop, { once: true });
      this.waiting.set(request.id, {
        request,
        settle: (reply) => {
          signal.removeEventListener('abort', drop);
          this.waiting.delete(request.id);
          resolve(reply);
        },
      });
      for (const l of this.listeners) l(request);
    });

  constructor(private readonly by = 'queue') {}

  /** The asks waiting now, oldest first. */
  pending(): ApprovalRequest[] {
    return [...this.waiting.values()].map((w) => w.request);
  }

  /** Answers a waiting ask; false when there is none with this id (answered, timed out, or never asked). */
  answer(id: string, reply: ApprovalReply): boolean {
    const w = this.waiting.get(id);
    if (!w) return false;
    w.settle({ ...reply, by: reply.by ?? this.by });
    return true;
  }

  /** Calls `listener` with every new ask; returns the unsubscribe. */
  onAsk(listener: (request: ApprovalRequest) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
