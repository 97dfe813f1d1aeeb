import type { ApprovalReply, Approver } from '../../core/index.js';

/**
 * The approver of a resumed workflow run that waited on a permission ask (`qitos workflow resume --approve` or
 * `--reject`): it gives `reply` to the first ask of the run (the waiting node's, which runs again first) and
 * leaves every later ask unanswered, so the thread waits again on that one.
 */
export function waitingAskAnswer(reply: ApprovalReply): Approver {
  let answered = false;
  return () => {
    if (answered) throw new Error('this resume answered one ask already; resume again to answer this one');
    answered = true;
    return { ...reply, by: reply.by ?? 'workflow resume' };
  };
}
